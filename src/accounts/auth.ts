import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify';
import { israelDate } from '../platform/clock.ts';
import { AUTH_THROTTLE_DEFAULTS } from '../platform/config.ts';
import { AppError, forbidden, unauthorized } from '../platform/errors.ts';
import { modeOfKey } from '../platform/http/context.ts';
import type { Database } from '../platform/db/engine.ts';
import { soleProcess, type Services } from '../platform/http/services.ts';
import { errorSummary } from '../platform/logger.ts';
import { sql } from 'drizzle-orm';
import { MemoryRateLimiter, PostgresRateLimiter, type PeekableRateLimiter, type RateDecision } from '../platform/rate-limit.ts';
import { findKeyByDigest, hashKey, KEY_PATTERN } from './keys.ts';

/**
 * Issue 16: more than this many failed authentications (missing, malformed, unknown, revoked or
 * expired key) from one address within a sliding minute, and that address's further attempts
 * answer 429 `rate_limited` with Retry-After, except with keys it used successfully before.
 * The default of `AUTH_FAILURES_PER_MINUTE` (config.authThrottle.failuresPerMinute).
 */
export const AUTH_FAILURES_PER_MINUTE = AUTH_THROTTLE_DEFAULTS.failuresPerMinute;
/**
 * How long a successful (address, key) pair stays exempt from its address's block: the default of
 * `AUTH_TRUSTED_KEY_HOURS` (config.authThrottle.trustedForMs).
 */
export const TRUSTED_FOR_MS = AUTH_THROTTLE_DEFAULTS.trustedKeyHours * 60 * 60_000;
const TRUSTED_KEYS_PER_ADDRESS = 64;
const TRUSTED_ADDRESSES = 50_000;

/**
 * Per process, in memory: digests of keys that authenticated from an address, with when. Bounded
 * (keys per address, addresses overall; the oldest go first); a key revoked or expired is forgotten
 * at its next failure, and the DB check still runs for every trusted key.
 */
class TrustedKeys {
  private byIp = new Map<string, Map<string, number>>();

  constructor(private readonly trustedForMs: number) {}

  has(ip: string, digest: string, nowMs: number): boolean {
    const at = digest ? this.byIp.get(ip)?.get(digest) : undefined;
    return at !== undefined && nowMs - at < this.trustedForMs;
  }

  remember(ip: string, digest: string, nowMs: number): void {
    let keys = this.byIp.get(ip);
    if (keys) this.byIp.delete(ip);
    else keys = new Map();
    this.byIp.set(ip, keys); // most recent last
    if (this.byIp.size > TRUSTED_ADDRESSES) this.byIp.delete(this.byIp.keys().next().value!);
    keys.delete(digest);
    keys.set(digest, nowMs);
    if (keys.size > TRUSTED_KEYS_PER_ADDRESS) keys.delete(keys.keys().next().value!);
  }

  forget(ip: string, digest: string): void {
    this.byIp.get(ip)?.delete(digest);
  }
}

// lastUsedAt is written at most once a minute per key: a read-heavy client costs no write per request.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Authenticates every request of the API scope: key → account, mode (database), rate limit, scope.
 * Order matters: an address over the failure limit (AUTH_FAILURES_PER_MINUTE) is 429 first (unless the key worked from it
 * before); an unknown key is 401 (and counted); a known key is counted by the limiter
 * before its scope is checked, so probing scopes is rate limited too.
 */
export function installApiAuth(api: FastifyInstance, s: Services): void {
  const lastUsedWritten = new Map<string, number>();
  const control = s.databases.live;
  // Failed authentications per client address: the same store as the per-key limiter (in memory in a
  // sole process, the shared rate_limit_hit window when several processes share the databases).
  const { failuresPerMinute, trustedForMs } = s.config.authThrottle;
  const failures: PeekableRateLimiter = soleProcess(s) ? new MemoryRateLimiter(failuresPerMinute) : new PostgresRateLimiter(control, failuresPerMinute);
  const trusted = new TrustedKeys(trustedForMs);

  const throttled = (decision: RateDecision) => {
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    return new AppError(429, 'rate_limited', `too many failed authentications from this address; retry in ${seconds} s`, { 'Retry-After': String(seconds) });
  };
  /** Counts a failed attempt; the one past the limit already answers 429 instead of 401. */
  const refuse = async (ip: string, nowMs: number, err: AppError): Promise<never> => {
    const decision = await failures.hit(`authfail:${ip}`, nowMs);
    throw decision.allowed ? err : throttled(decision);
  };

  api.addHook('onRequest', async (req, reply) => {
    const header = req.headers['x-api-key'];
    const secret = typeof header === 'string' ? header.trim() : '';
    const ip = req.ip;
    const nowMs = s.clock.now().getTime();
    // A blocked address gets 429 for every key except one that authenticated from it before the
    // block (another tenant behind the same NAT keeps working); nothing is looked up, so guesses
    // made while blocked learn nothing, not even a lucky hit.
    const digest = secret ? hashKey(secret) : '';
    if (!trusted.has(ip, digest, nowMs)) {
      const state = await failures.peek(`authfail:${ip}`, nowMs);
      if (!state.allowed) throw throttled(state);
    }
    if (!secret) return refuse(ip, nowMs, unauthorized('missing X-Api-Key header'));
    if (!KEY_PATTERN.test(secret)) return refuse(ip, nowMs, unauthorized());
    const key = await findKeyByDigest(control.db, digest);
    const now = s.clock.now();
    if (!key || key.revokedAt || (key.expiresAt && new Date(key.expiresAt).getTime() <= now.getTime())) {
      trusted.forget(ip, digest);
      return refuse(ip, nowMs, unauthorized());
    }
    trusted.remember(ip, digest, now.getTime());
    const mode = modeOfKey(key.mode);
    reply.header('X-Service-Mode', mode);

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
  });
}

/** The per-key rate limit: counts the request, sets the X-RateLimit headers, 429 past the limit. */
async function limitKeyRate(s: Services, keyId: string, now: Date, reply: FastifyReply): Promise<void> {
  const decision = await s.rateLimiter.hit(keyId, now.getTime());
  reply.header('X-RateLimit-Limit', String(decision.limit));
  reply.header('X-RateLimit-Remaining', String(decision.remaining));
  if (!decision.allowed) {
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw new AppError(429, 'rate_limited', `more than ${decision.limit} requests per minute with this key; retry in ${seconds} s`, {
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
