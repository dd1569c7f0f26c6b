import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db, Executor } from '../platform/db/engine.ts';
import { iso, isoOrNull, prepared, query, queryOne } from '../platform/db/sql.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { columnList } from '../platform/db/row-reader.ts';
import { apiKeys } from './tables.ts';
import { AppError, conflict, forbidden, notFound, validation } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import type { AccountLimits, KeyMode } from '../platform/http/context.ts';
import { DEFAULT_SCOPES, isScope, SCOPES, type Scope } from '../platform/catalog/scopes.ts';

/** A key: `bk_live_` or `bk_test_` and 32 base62 characters (≈190 random bits). */
const KEY_BODY_CHARS = 32;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PATTERN = /^bk_(live|test)_[0-9A-Za-z]{32}$/;

export function generateKeySecret(mode: KeyMode): string {
  let body = '';
  while (body.length < KEY_BODY_CHARS) {
    for (const b of randomBytes(48)) {
      // Rejection sampling keeps every character equally likely.
      if (b < 248 && body.length < KEY_BODY_CHARS) body += BASE62[b % 62];
    }
  }
  return `bk_${mode}_${body}`;
}

/** Keys carry ~190 random bits, so a plain SHA-256 is a safe one-way store (no stretching needed). */
export function hashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** What the listings show: enough to recognise a key, never enough to use it. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, 12);
}

export interface KeyRecord {
  id: string;
  accountId: string;
  prefix: string;
  label: string | null;
  mode: KeyMode;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export function toKeyRecord(r: Record<string, unknown>): KeyRecord {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    prefix: String(r.prefix),
    label: (r.label as string | null) ?? null,
    mode: r.mode as KeyMode,
    scopes: r.scopes as Scope[],
    createdAt: iso(r.created_at),
    lastUsedAt: isoOrNull(r.last_used_at),
    expiresAt: isoOrNull(r.expires_at),
    revokedAt: isoOrNull(r.revoked_at),
  };
}

export function parseScopes(input: string[] | undefined): Scope[] {
  if (!input || input.length === 0) return [...DEFAULT_SCOPES];
  const out: Scope[] = [];
  for (const s of input) {
    if (!isScope(s)) throw validation('scopes', `unknown scope "${s}" (known: ${SCOPES.join(', ')})`);
    if (!out.includes(s)) out.push(s);
  }
  return out;
}

export interface MintInput {
  accountId: string;
  mode: KeyMode;
  label?: string | null;
  scopes?: string[];
  expiresAt?: Date | null;
}

/**
 * Mints a key for an approved account. The secret is returned here and never again.
 * The account row is locked so two mints cannot both pass the active-key limit.
 */
export async function mintKey(control: Db, now: Date, input: MintInput): Promise<{ key: KeyRecord; secret: string }> {
  const scopes = parseScopes(input.scopes);
  if (input.label && input.label.length > 100) throw validation('label', 'at most 100 characters');
  return control.transaction(async (tx) => {
    const account = await queryOne<{ approval_status: string; max_active_keys: number; ocr_granted: boolean }>(
      tx,
      sql`SELECT approval_status, max_active_keys, ocr_granted FROM accounts WHERE id = ${input.accountId} FOR UPDATE`,
    );
    if (!account) throw notFound('account');
    if (account.approval_status !== 'approved') {
      throw new AppError('approval_required', 'the account is not approved; keys are minted only for approved accounts');
    }
    if (scopes.includes('ocr') && !account.ocr_granted) {
      throw forbidden('the ocr scope is granted on request; this account does not have it');
    }
    const active = await activeKeyCount(tx, input.accountId, now);
    if (active >= account.max_active_keys) {
      throw conflict(`the account already has ${active} active keys (limit ${account.max_active_keys}); revoke one first`);
    }
    const secret = generateKeySecret(input.mode);
    const row = await queryOne<Record<string, unknown>>(
      tx,
      sql`${insertInto(apiKeys, {
        id: newId('key', now.getTime()),
        accountId: input.accountId,
        mode: input.mode,
        prefix: displayPrefix(secret),
        keyHash: hashKey(secret),
        label: input.label ?? null,
        scopes,
        createdAt: now,
        expiresAt: input.expiresAt ?? null,
      })} RETURNING *`,
    );
    return { key: toKeyRecord(row!), secret };
  });
}

export async function activeKeyCount(ex: Executor, accountId: string, now: Date): Promise<number> {
  const r = await queryOne<{ n: number }>(
    ex,
    sql`SELECT count(*)::int AS n FROM api_keys
        WHERE account_id = ${accountId} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now.toISOString()})`,
  );
  return r!.n;
}

/** Revokes a key (idempotent: revoking a revoked key keeps its first revocation time). */
export async function revokeKey(control: Db, now: Date, keyId: string, accountId?: string): Promise<KeyRecord> {
  const row = await queryOne<Record<string, unknown>>(
    control,
    accountId
      ? sql`UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${now.toISOString()}) WHERE id = ${keyId} AND account_id = ${accountId} RETURNING *`
      : sql`UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${now.toISOString()}) WHERE id = ${keyId} RETURNING *`,
  );
  if (!row) throw notFound('key');
  return toKeyRecord(row);
}

export async function listKeys(ex: Executor, accountId: string): Promise<KeyRecord[]> {
  const rows = await query<Record<string, unknown>>(ex, sql`SELECT * FROM api_keys WHERE account_id = ${accountId} ORDER BY created_at, id`);
  return rows.map(toKeyRecord);
}

/** One key by digest, revoked or not (the key cache re-reads a notified key with it). */
export async function findKeyRow(ex: Executor, digest: string): Promise<KeyRecord | undefined> {
  const row = await queryOne<Record<string, unknown>>(
    ex,
    prepared('key_row_by_digest', sql`SELECT ${columnList(apiKeys)} FROM api_keys WHERE key_hash = ${digest}`),
  );
  return row ? toKeyRecord(row) : undefined;
}

/** Every key not revoked, by digest: what the key cache loads (expiry is checked at use, by the service's clock). */
export async function usableKeys(ex: Executor): Promise<Map<string, KeyRecord>> {
  const rows = await query<Record<string, unknown>>(ex, sql`SELECT ${columnList(apiKeys)} FROM api_keys WHERE revoked_at IS NULL`);
  return new Map(rows.map((r) => [String(r.key_hash), toKeyRecord(r)]));
}

/** Compared against when no row matches, so a miss does the same work as a hit. */
const MISS_DIGEST = Buffer.alloc(32);

/**
 * The lookup is by the SHA-256 digest (`hashKey`) of the whole secret (unique index), never by a prefix the
 * caller controls: the index walk's timing depends on a digest the caller cannot steer. The stored
 * digest is then compared in constant time (`timingSafeEqual`), and an unknown key is compared
 * against a fixed digest, so a hit and a miss do the same work after the query.
 */
export async function findKeyByDigest(ex: Executor, digest: string): Promise<(KeyRecord & { accountLimits: AccountLimits }) | undefined> {
  // The account's ceilings come along (one round trip for both): issuing checks them.
  const row = await queryOne<Record<string, unknown>>(
    ex,
    prepared(
      'key_by_digest',
      sql`SELECT ${columnList(apiKeys, 'k')}, a.max_docs_per_month AS account_max_docs_per_month, a.max_expenses_per_month AS account_max_expenses_per_month
            FROM api_keys k LEFT JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ${digest}`,
    ),
  );
  const given = Buffer.from(digest, 'hex');
  const stored = row && typeof row.key_hash === 'string' && row.key_hash.length === 64 ? Buffer.from(row.key_hash, 'hex') : MISS_DIGEST;
  const equal = timingSafeEqual(given, stored);
  if (!row || !equal) return undefined;
  const limit = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    ...toKeyRecord(row),
    accountLimits: { maxDocsPerMonth: limit(row.account_max_docs_per_month), maxExpensesPerMonth: limit(row.account_max_expenses_per_month) },
  };
}
