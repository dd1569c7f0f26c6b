import { sql } from 'drizzle-orm';
import { mintKey, toKeyRecord, type KeyRecord } from '../accounts/index.ts';
import { appendAudit } from '../platform/audit.ts';
import { queryOne } from '../platform/db/sql.ts';
import type { Services } from '../platform/http/services.ts';
import { claimMintToken, mintFormHash, recordMint } from './mint-tokens.ts';
import { openSecret, sealSecret } from './sealed-secret.ts';

export interface ConsoleMintInput {
  accountId: string;
  form: { label: string; mode: 'live' | 'test'; scopes: string[] };
  /** The form's one-time token; without one every submit mints. */
  token: string | undefined;
  /** The session's cookie token: seals the secret so that only this session sees it again. */
  sessionToken: string;
}

export type ConsoleMintOutcome =
  | { kind: 'minted'; key: KeyRecord; secret: string }
  /** The token already minted this key; the secret only for the same session inside its window. */
  | { kind: 'repeat'; key: KeyRecord; secret: string | null }
  | { kind: 'conflict' };

/**
 * Mints a key from the console form. The key, its audit row and the token's record commit together
 * (mintKey's own transaction nests as a savepoint); a refusal rolls the token back with them.
 */
export async function mintThroughConsole(s: Services, input: ConsoleMintInput): Promise<ConsoleMintOutcome> {
  const { accountId, form, token, sessionToken } = input;
  const control = s.databases.live;
  const now = s.clock.now();
  const context = `${accountId}:${token}`;
  const outcome = await control.db.transaction(async (tx) => {
    if (token !== undefined) {
      const claim = await claimMintToken(tx, { now, accountId, token, hash: mintFormHash(form) });
      if (claim.kind !== 'claimed') return claim;
    }
    const r = await mintKey(tx, now, { accountId, mode: form.mode, label: form.label || null, scopes: form.scopes });
    await appendAudit(
      tx,
      { at: now, actor: { accountId, keyId: null } },
      {
        action: 'key.minted',
        entityType: 'api_key',
        entityId: r.key.id,
        after: { prefix: r.key.prefix, mode: r.key.mode, label: r.key.label, scopes: r.key.scopes, via: 'console' },
      },
    );
    if (token !== undefined)
      await recordMint(tx, { now, accountId, token, keyId: r.key.id, sealedSecret: sealSecret(r.secret, sessionToken, context, r.key.id) });
    return { kind: 'minted' as const, key: r.key, secret: r.secret };
  });
  // The new key is in every process's key cache before its secret is shown: it passes at once, even
  // from an address whose bad keys are being shed (src/accounts/auth.ts).
  if (outcome.kind === 'minted') await s.invalidation.live.fence();
  if (outcome.kind !== 'repeat') return outcome;

  const row = await queryOne<Record<string, unknown>>(control.db, sql`SELECT * FROM api_keys WHERE id = ${outcome.keyId} AND account_id = ${accountId}`);
  const key = toKeyRecord(row!);
  const inWindow = outcome.revealUntil !== null && Date.parse(outcome.revealUntil) > now.getTime();
  const secret = inWindow && outcome.sealedSecret && !key.revokedAt ? openSecret(outcome.sealedSecret, sessionToken, context, key.id) : null;
  return { kind: 'repeat', key, secret };
}
