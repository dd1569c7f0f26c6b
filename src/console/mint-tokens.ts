import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { isoOrNull, queryOne } from '../platform/db/sql.ts';
import { validation } from '../platform/errors.ts';
import { IDEMPOTENCY_HEADER, KEEP_MS } from '../platform/http/idempotency.ts';
import { field, MINT_TOKEN_FIELD } from './forms.ts';

/**
 * One-time tokens of the console's mint form (docs/console.md "Idempotent mint"). The token row is
 * inserted in the mint's own transaction before the key: a concurrent repeat waits on the primary
 * key until that transaction ends, then finds the key (commit) or claims the token itself
 * (rollback: a refused mint does not burn its token). No pending state, so no crash window.
 */

/** How long the same session may see a repeated mint's secret again (a double click shows the last answer). */
export const REVEAL_MS = 10 * 60_000;
const TOKEN_SHAPE = /^[\x21-\x7e](?:[\x20-\x7e]{0,198}[\x21-\x7e])?$/;
const ACTION = 'key.mint';

export interface MintForm {
  label: string;
  mode: string;
  scopes: string[];
}

/** The request's token (header or form field), undefined when none was sent; a malformed one is refused. */
export function mintTokenOf(req: FastifyRequest): string | undefined {
  const header = req.headers[IDEMPOTENCY_HEADER];
  const fromForm = field(req.body, MINT_TOKEN_FIELD) || undefined;
  if (Array.isArray(header)) throw validation('headers.idempotency-key', 'send one Idempotency-Key');
  if (header !== undefined && fromForm !== undefined && header !== fromForm) {
    throw validation('idempotency_key', 'the Idempotency-Key header and the form field differ');
  }
  const token = header ?? fromForm;
  if (token !== undefined && !TOKEN_SHAPE.test(token)) {
    throw validation('idempotency_key', 'must be 1 to 200 printable ASCII characters, without leading or trailing spaces');
  }
  return token;
}

/** The form as the mint reads it: checkbox order does not make another request. */
export function mintFormHash(form: MintForm): string {
  const scopes = [...new Set(form.scopes)].sort();
  return createHash('sha256')
    .update(JSON.stringify({ label: form.label, mode: form.mode, scopes }))
    .digest('hex');
}

export type MintClaim = { kind: 'claimed' } | { kind: 'repeat'; keyId: string; sealedSecret: string | null; revealUntil: string | null } | { kind: 'conflict' };

interface TokenRow {
  action: string;
  request_hash: string;
  key_id: string | null;
  sealed_secret: string | null;
  reveal_until: unknown;
}

/**
 * Inside the mint transaction: claims the token (new, or expired and taken over), or answers what
 * it already created. Another form body under the token is a conflict.
 */
export async function claimMintToken(
  tx: Executor,
  { now, accountId, token, hash }: { now: Date; accountId: string; token: string; hash: string },
): Promise<MintClaim> {
  const at = now.toISOString();
  const expires = new Date(now.getTime() + KEEP_MS).toISOString();
  // The row can vanish between the insert and the read (pruned once expired): try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const won = await queryOne(
      tx,
      sql`INSERT INTO console_idempotency AS t (account_id, token, action, request_hash, created_at, expires_at)
          VALUES (${accountId}, ${token}, ${ACTION}, ${hash}, ${at}, ${expires})
          ON CONFLICT (account_id, token) DO UPDATE SET
            action = excluded.action, request_hash = excluded.request_hash, key_id = NULL, sealed_secret = NULL,
            reveal_until = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
          WHERE t.expires_at <= ${at}
          RETURNING 1`,
    );
    if (won) return { kind: 'claimed' };
    const held = await queryOne<TokenRow>(
      tx,
      sql`SELECT action, request_hash, key_id, sealed_secret, reveal_until FROM console_idempotency
           WHERE account_id = ${accountId} AND token = ${token}`,
    );
    if (!held) continue;
    if (held.action !== ACTION || held.request_hash !== hash || held.key_id === null) return { kind: 'conflict' };
    return { kind: 'repeat', keyId: held.key_id, sealedSecret: held.sealed_secret, revealUntil: isoOrNull(held.reveal_until) };
  }
  return { kind: 'conflict' };
}

/** Records the key the token created, with its sealed secret, in the same transaction. */
export async function recordMint(
  tx: Executor,
  { now, accountId, token, keyId, sealedSecret }: { now: Date; accountId: string; token: string; keyId: string; sealedSecret: string },
): Promise<void> {
  await tx.execute(
    sql`UPDATE console_idempotency SET key_id = ${keyId}, sealed_secret = ${sealedSecret},
               reveal_until = ${new Date(now.getTime() + REVEAL_MS).toISOString()}
         WHERE account_id = ${accountId} AND token = ${token}`,
  );
}

/** The prune worker's part: expired tokens go, and sealed secrets past their window are erased. */
export async function pruneMintTokens(ex: Executor, now: Date): Promise<{ tokens: number; sealed: number }> {
  const at = now.toISOString();
  const count = (r: unknown) => Number((r as { rowCount?: number }).rowCount ?? (r as { affectedRows?: number }).affectedRows ?? 0);
  const tokens = count(await ex.execute(sql`DELETE FROM console_idempotency WHERE expires_at <= ${at}`));
  const sealed = count(await ex.execute(sql`UPDATE console_idempotency SET sealed_secret = NULL WHERE sealed_secret IS NOT NULL AND reveal_until <= ${at}`));
  return { tokens, sealed };
}
