import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/engine.ts';
import type { IdempotencyState } from '../db/tables.ts';
import { query, queryOne } from '../db/sql.ts';
import { canonicalJson } from '../canonical-json.ts';
import { AppError, conflict, validation } from '../errors.ts';
import type { Services } from './services.ts';

/**
 * `Idempotency-Key` on the creates (docs/foundation.md "Idempotency"). A request with the header claims the key
 * (a `pending` row, unique per account and key, in the database of the key's mode) before its
 * handler runs; its 2xx JSON answer is stored and replayed to a retry of the same request, with
 * `deduped: true` and `Idempotent-Replayed: true`; any other answer deletes the claim so a retry
 * runs again. Another request with the key (another body or route) is 409 `conflict`; so is the
 * same request while the first one is still running.
 */

export interface IdempotentRoute {
  method: string;
  /** The route pattern with its prefix, as `req.routeOptions.url`: `/v1/businesses/:bid/parties`. */
  url: string;
  /**
   * `body` (default): claimed before the handler, fingerprinted by its JSON body. `in-handler`: the
   * handler reads its own input (multipart) and calls claimIdempotencyKey with a fingerprint of it.
   */
  fingerprint?: 'body' | 'in-handler';
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** How long a key answers the same: at least this, then a later request may purge it. */
export const KEEP_MS = 24 * 60 * 60 * 1000;
/** A pending claim nobody renewed for this long belongs to a request that died: a retry takes it over. */
export const LEASE_MS = 2 * 60 * 1000;
/** The running request renews its lease this often (real time: it runs while the handler does). */
const RENEW_MS = 30 * 1000;
/** The longest a request keeps renewing its claim. */
const MAX_RUN_MS = 60 * 60 * 1000;
/** Expired rows deleted on each stored answer: more than one, so deletes outpace inserts. */
const PURGE_BATCH = 100;
const KEY_SHAPE = /^[\x21-\x7e](?:[\x20-\x7e]{0,198}[\x21-\x7e])?$/;

interface Claim {
  database: Database;
  accountId: string;
  key: string;
  claimId: string;
  renew: NodeJS.Timeout;
}

// Request-scoped, not a singleton: a claim lives exactly as long as its request object.
const claims = new WeakMap<FastifyRequest, Claim>();

interface KeyRow {
  request_hash: string;
  method: string;
  path: string;
  state: IdempotencyState;
  response_status: number | null;
  response_body: string | null;
}

/** The header's key, or undefined when none was sent; a malformed one is refused. */
function keyOf(req: FastifyRequest): string | undefined {
  const raw = req.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !KEY_SHAPE.test(raw)) {
    throw validation('headers.idempotency-key', 'must be 1 to 200 printable ASCII characters, without leading or trailing spaces');
  }
  return raw;
}

function requestHash(req: FastifyRequest, content: string): string {
  return createHash('sha256').update(`${req.method} ${req.url}\n${content}`).digest('hex');
}

function isoAfter(s: Services, ms: number): string {
  return new Date(s.clock.now().getTime() + ms).toISOString();
}

/**
 * Claims the request's key, or answers for it. Resolves true when the stored answer was sent (the
 * handler must not run: return `reply`), false when this request owns the key (or sent none) and
 * runs. Throws 409 `conflict` for another request under the key, or one still in progress.
 */
export async function claimIdempotencyKey(s: Services, req: FastifyRequest, reply: FastifyReply, content: string): Promise<boolean> {
  const key = keyOf(req);
  if (key === undefined || !req.ctx) return false;
  const { database } = req.ctx;
  const accountId = req.ctx.key.accountId;
  const hash = requestHash(req, content);
  const path = req.url;
  // A claim can vanish between the insert and the read (its request failed and released it): try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = s.clock.now().toISOString();
    const claimId = randomUUID();
    // Insert, or take over an expired key or a pending claim whose request died (same request only).
    const won = await queryOne<{ claim_id: string }>(
      database.db,
      sql`INSERT INTO idempotency_keys AS k
            (account_id, idem_key, request_hash, method, path, state, claim_id, lease_until, created_at, expires_at)
          VALUES (${accountId}, ${key}, ${hash}, ${req.method}, ${path}, 'pending', ${claimId},
                  ${isoAfter(s, LEASE_MS)}::timestamptz, ${now}::timestamptz, ${isoAfter(s, KEEP_MS)}::timestamptz)
          ON CONFLICT (account_id, idem_key) DO UPDATE SET
            request_hash = excluded.request_hash, method = excluded.method, path = excluded.path, state = 'pending',
            claim_id = excluded.claim_id, lease_until = excluded.lease_until, response_status = NULL,
            response_body = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
          WHERE k.expires_at <= ${now}::timestamptz
             OR (k.state = 'pending' AND k.lease_until <= ${now}::timestamptz AND k.request_hash = excluded.request_hash)
          RETURNING claim_id`,
    );
    if (won) {
      const started = Date.now();
      // A handler that never answers stops holding the key after MAX_RUN_MS (then the lease lapses).
      const renew = setInterval(() => {
        if (Date.now() - started > MAX_RUN_MS) clearInterval(renew);
        else renewLease(s, database, claimId);
      }, RENEW_MS);
      renew.unref();
      claims.set(req, { database, accountId, key, claimId, renew });
      return false;
    }
    const held = await queryOne<KeyRow>(
      database.db,
      sql`SELECT request_hash, method, path, state, response_status, response_body
            FROM idempotency_keys WHERE account_id = ${accountId} AND idem_key = ${key}`,
    );
    if (!held) continue;
    if (held.method !== req.method || held.path !== path) {
      throw conflict(`Idempotency-Key was already used for another request (${held.method} ${held.path}); send a new key`);
    }
    if (held.request_hash !== hash) throw conflict('Idempotency-Key reused with a different body');
    if (held.state === 'pending') {
      throw new AppError('conflict', 'a request with this Idempotency-Key is in progress; retry when it has answered', { 'Retry-After': '1' });
    }
    replay(reply, held.response_status!, held.response_body!);
    return true;
  }
  throw new AppError('conflict', 'a request with this Idempotency-Key is in progress; retry when it has answered', { 'Retry-After': '1' });
}

/** The stored answer again, marked as a repeat in the body and in a header. */
function replay(reply: FastifyReply, status: number, body: string): void {
  let text = body;
  const parsed: unknown = JSON.parse(body);
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) text = JSON.stringify({ ...parsed, deduped: true });
  reply.code(status).header('Idempotent-Replayed', 'true').type('application/json; charset=utf-8').send(text);
}

function renewLease(s: Services, database: Database, claimId: string): void {
  Promise.resolve(
    database.db.execute(sql`UPDATE idempotency_keys SET lease_until = ${isoAfter(s, LEASE_MS)}::timestamptz WHERE claim_id = ${claimId} AND state = 'pending'`),
  ).catch((err: unknown) => s.logger.warn({ err }, 'idempotency lease renewal failed'));
}

/** Stores a 2xx JSON answer; anything else releases the key so that a retry runs again. */
async function settle(s: Services, claim: Claim, reply: FastifyReply, payload: unknown): Promise<void> {
  clearInterval(claim.renew);
  const json = String(reply.getHeader('content-type') ?? '').includes('json');
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  const own = sql`account_id = ${claim.accountId} AND idem_key = ${claim.key} AND claim_id = ${claim.claimId}`;
  if (reply.statusCode >= 200 && reply.statusCode < 300 && json && text !== null) {
    const now = s.clock.now().toISOString();
    // One round trip also purges a few expired keys (other than this one), skipping rows in use.
    await query(
      claim.database.db,
      sql`WITH purged AS (
            DELETE FROM idempotency_keys WHERE ctid IN (
              SELECT ctid FROM idempotency_keys
               WHERE expires_at <= ${now}::timestamptz AND NOT (account_id = ${claim.accountId} AND idem_key = ${claim.key})
               ORDER BY expires_at LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED))
          UPDATE idempotency_keys SET state = 'done', response_status = ${reply.statusCode}, response_body = ${text}
           WHERE ${own} RETURNING 1`,
    );
    return;
  }
  await claim.database.db.execute(sql`DELETE FROM idempotency_keys WHERE ${own}`);
}

/** Installs the claim (preHandler) and the store (onSend) for the listed routes of this scope. */
export function installIdempotency(api: FastifyInstance, s: Services, routes: IdempotentRoute[]): void {
  const modes = new Map(routes.map((r) => [`${r.method} ${r.url}`, r.fingerprint ?? 'body']));
  const seen = new Set<string>();
  api.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) if (modes.has(`${m} ${r.url}`)) seen.add(`${m} ${r.url}`);
  });
  // A renamed route would silently lose its idempotency: refuse to start instead.
  api.addHook('onReady', async () => {
    const missing = [...modes.keys()].filter((k) => !seen.has(k));
    if (missing.length > 0) throw new Error(`idempotent routes not registered: ${missing.join(', ')}`);
  });
  api.addHook('preHandler', async (req, reply) => {
    const mode = modes.get(`${req.method} ${req.routeOptions.url}`);
    // keyOf refuses a malformed key before the handler reads the body; without a key there is no fingerprint to take.
    if (mode === undefined || keyOf(req) === undefined || mode === 'in-handler') return;
    if (await claimIdempotencyKey(s, req, reply, canonicalJson(req.body ?? null))) return reply;
  });
  api.addHook('onSend', async (req, reply, payload) => {
    const claim = claims.get(req);
    if (!claim) return payload;
    claims.delete(req);
    try {
      await settle(s, claim, reply, payload);
    } catch (err) {
      // The answer still goes out; the pending claim lapses after LEASE_MS and a retry runs again.
      req.log.error({ err }, 'idempotency: storing the answer failed');
    }
    return payload;
  });
  // Should a request end without onSend (an aborted or hijacked reply), stop renewing its claim.
  api.addHook('onResponse', async (req) => {
    const claim = claims.get(req);
    if (claim) {
      clearInterval(claim.renew);
      claims.delete(req);
    }
  });
}
