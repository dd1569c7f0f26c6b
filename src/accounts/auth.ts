import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { israelDate } from '../platform/clock.ts';
import { AUTH_THROTTLE_DEFAULTS } from '../platform/config.ts';
import { AppError, forbidden, unauthorized } from '../platform/errors.ts';
import { modeOfKey, type AccountLimits } from '../platform/http/context.ts';
import type { Database } from '../platform/db/engine.ts';
import { soleProcess, type Services } from '../platform/http/services.ts';
import { errorSummary } from '../platform/logger.ts';
import { sql } from 'drizzle-orm';
import { MemoryRateLimiter, PostgresRateLimiter, type PeekableRateLimiter, type RateDecision } from '../platform/rate-limit.ts';
import { findKeyByDigest, hashKey, KEY_PATTERN, type KeyRecord } from './keys.ts';
import { accountLimitsOf } from './caches.ts';

/**
 * Issue 16: more than this many failed authentications (missing, malformed, unknown, revoked or
 * expired key) from one address within a sliding minute, and that address's further attempts with
 * such keys answer 429 `rate_limited` with Retry-After. A valid key always passes (issue 28).
 * The default of `AUTH_FAILURES_PER_MINUTE` (config.authThrottle.failuresPerMinute).
 */
export const AUTH_FAILURES_PER_MINUTE = AUTH_THROTTLE_DEFAULTS.failuresPerMinute;

// lastUsedAt is written at most once a minute per key: a read-heavy client costs no write per request.
const LAST_USED_RESOLUTION_MS = 60_000;

type FoundKey = KeyRecord & { accountLimits: AccountLimits };

/** Where a request carries its API key, and what a request without one is told. */
export interface KeySource {
  read(req: FastifyRequest): string;
  missing: string;
}

/** The REST API's one place for the key (the contract: `X-Api-Key`). */
export const API_KEY_HEADER: KeySource = {
  read: (req) => {
    const header = req.headers['x-api-key'];
    return typeof header === 'string' ? header.trim() : '';
  },
  missing: 'missing X-Api-Key header',
};

/** Installs the authentication on a Fastify scope; every scope installed by one ApiAuth shares its failure counts. */
export interface ApiAuth {
  install(scope: FastifyInstance, source?: KeySource): void;
}

/**
 * Authenticates every request of the scopes it is installed on (`/v1`, `/mcp`): key → account, mode (database), rate limit, scope.
 * The key comes from the key cache (every usable key of the control database, src/accounts/key-cache.ts),
 * else from the database. Failed attempts are counted per address; past AUTH_FAILURES_PER_MINUTE the
 * address's bad keys answer 429 — a key the cache knows is no usable key is refused without a lookup —
 * while a valid key still passes, so a burst of guesses from behind a NAT locks no integrator out.
 * A known key is counted by the limiter before its scope is checked, so probing scopes is rate limited too.
 */
export function createApiAuth(s: Services): ApiAuth {
  const lastUsedWritten = new Map<string, number>();
  const control = s.databases.live;
  // Failed authentications per client address: the same store as the per-key limiter (in memory in a
  // sole process, the shared rate_limit_hit window when several processes share the databases).
  const failures: PeekableRateLimiter = soleProcess(s)
    ? new MemoryRateLimiter(s.config.authThrottle.failuresPerMinute)
    : new PostgresRateLimiter(control, s.config.authThrottle.failuresPerMinute);

  const throttled = (decision: RateDecision) => {
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    return new AppError('rate_limited', `too many failed authentications from this address; retry in ${seconds} s`, { 'Retry-After': String(seconds) });
  };
  /** Counts a failed attempt; the one past the limit already answers 429 instead of 401. */
  const refuse = async (ip: string, nowMs: number, err: AppError): Promise<never> => {
    const decision = await failures.hit(`authfail:${ip}`, nowMs);
    throw decision.allowed ? err : throttled(decision);
  };
  const usable = (key: FoundKey | undefined, nowMs: number): key is FoundKey =>
    key !== undefined && !key.revokedAt && !(key.expiresAt && new Date(key.expiresAt).getTime() <= nowMs);

  /**
   * The key, from the cache or else the database; undefined for no usable key. When the cache knows
   * the digest is no usable key (or there is no well-formed key), a blocked address is refused here,
   * before any lookup; an address not blocked still asks the database, since the cache may not have
   * heard yet of a key minted a moment ago by another process. When the cache cannot say (not
   * listening, still loading, that key just changed), the database answers.
   */
  const findKey = async (ip: string, digest: string, nowMs: number): Promise<FoundKey | undefined> => {
    const cached = digest ? s.accountCaches.keys.lookup(digest) : ({ known: true, key: undefined } as const);
    if (cached.known && cached.key) return { ...cached.key, accountLimits: await accountLimitsOf(s, cached.key.accountId) };
    if (cached.known || !digest) {
      const state = await failures.peek(`authfail:${ip}`, nowMs);
      if (!state.allowed) throw throttled(state);
      if (!digest) return undefined;
    }
    return findKeyByDigest(control.db, digest);
  };

  const authenticate = async (source: KeySource, req: FastifyRequest, reply: FastifyReply) => {
    const secret = source.read(req);
    const ip = req.ip;
    const nowMs = s.clock.now().getTime();
    const digest = KEY_PATTERN.test(secret) ? hashKey(secret) : '';
    const key = await findKey(ip, digest, nowMs);
    const now = s.clock.now();
    if (!usable(key, now.getTime())) return refuse(ip, nowMs, unauthorized(secret ? undefined : source.missing));
    const mode = modeOfKey(key.mode);
    reply.header('X-Service-Mode', mode);
    req.caller = { accountId: key.accountId, mode, keyPrefix: key.prefix };

    await limitKeyRate(s, key.id, now, reply);

    const scope = req.routeOptions.config?.scope;
    if (scope && !key.scopes.includes(scope)) {
      throw forbidden(`this key lacks the "${scope}" scope`);
    }

    req.ctx = {
      mode,
      database: s.databases[mode],
      key: { id: key.id, accountId: key.accountId, mode: key.mode, prefix: key.prefix, scopes: key.scopes },
      actor: { accountId: key.accountId, keyId: key.id },
      accountLimits: key.accountLimits,
    };
    s.requestCounter.count(mode, israelDate(now), key.accountId);

    const last = lastUsedWritten.get(key.id) ?? (key.lastUsedAt ? new Date(key.lastUsedAt).getTime() : 0);
    if (now.getTime() - last >= LAST_USED_RESOLUTION_MS) {
      lastUsedWritten.set(key.id, now.getTime());
      await recordLastUsed(control, key.id, now, req.log);
    }
  };
  return { install: (scope, source = API_KEY_HEADER) => scope.addHook('onRequest', (req, reply) => authenticate(source, req, reply)) };
}

/** The per-key rate limit: counts the request, sets the X-RateLimit headers, 429 past the limit. */
async function limitKeyRate(s: Services, keyId: string, now: Date, reply: FastifyReply): Promise<void> {
  const decision = await s.rateLimiter.hit(keyId, now.getTime());
  reply.header('X-RateLimit-Limit', String(decision.limit));
  reply.header('X-RateLimit-Remaining', String(decision.remaining));
  if (!decision.allowed) {
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw new AppError('rate_limited', `more than ${decision.limit} requests per minute with this key; retry in ${seconds} s`, {
      'Retry-After': String(seconds),
      'X-RateLimit-Reset': String(seconds),
    });
  }
}

/** Best effort: a failed write of lastUsedAt never fails the request. */
async function recordLastUsed(control: Database, keyId: string, now: Date, log: FastifyBaseLogger): Promise<void> {
  try {
    await control.db.execute(sql`UPDATE api_keys SET last_used_at = ${now.toISOString()} WHERE id = ${keyId}`);
  } catch (err) {
    log.warn({ err: errorSummary(err) }, 'could not record lastUsedAt');
  }
}
