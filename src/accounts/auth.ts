import type { FastifyInstance } from 'fastify';
import { israelDate } from '../platform/clock.ts';
import { AppError, unauthorized } from '../platform/errors.ts';
import { modeOfKey } from '../platform/http/context.ts';
import type { Services } from '../platform/http/services.ts';
import { errorSummary } from '../platform/logger.ts';
import { sql } from 'drizzle-orm';
import { findKeyBySecret, KEY_PATTERN } from './keys.ts';

// lastUsedAt is written at most once a minute per key: a read-heavy client costs no write per request.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Authenticates every request of the API scope: key → account, mode (database), rate limit, scope.
 * Order matters: an unknown key is 401 before anything else; a known key is counted by the limiter
 * before its scope is checked, so probing scopes is rate limited too.
 */
export function installApiAuth(api: FastifyInstance, s: Services): void {
  const lastUsedWritten = new Map<string, number>();
  const control = s.databases.live;

  api.addHook('onRequest', async (req, reply) => {
    const header = req.headers['x-api-key'];
    const secret = typeof header === 'string' ? header.trim() : '';
    if (!secret) throw unauthorized('missing X-Api-Key header');
    if (!KEY_PATTERN.test(secret)) throw unauthorized();
    const key = await findKeyBySecret(control.db, secret);
    const now = s.clock.now();
    if (!key || key.revokedAt || (key.expiresAt && new Date(key.expiresAt).getTime() <= now.getTime())) throw unauthorized();
    const mode = modeOfKey(key.mode);
    reply.header('X-Service-Mode', mode);

    const decision = await s.rateLimiter.hit(key.id, now.getTime());
    reply.header('X-RateLimit-Limit', String(decision.limit));
    reply.header('X-RateLimit-Remaining', String(decision.remaining));
    if (!decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new AppError(429, 'rate_limited', `more than ${decision.limit} requests per minute with this key; retry in ${seconds} s`, {
        'Retry-After': String(seconds),
        'X-RateLimit-Reset': String(seconds),
      });
    }

    const scope = req.routeOptions.config?.scope;
    if (scope && !key.scopes.includes(scope)) {
      throw new AppError(403, 'forbidden', `this key lacks the "${scope}" scope`);
    }

    req.ctx = {
      mode,
      database: s.databases[mode],
      key: { id: key.id, accountId: key.accountId, mode: key.mode, prefix: key.prefix, scopes: key.scopes },
      actor: { accountId: key.accountId, keyId: key.id },
    };
    s.requestCounter.count(mode, israelDate(now), key.accountId);

    const last = lastUsedWritten.get(key.id) ?? (key.lastUsedAt ? new Date(key.lastUsedAt).getTime() : 0);
    if (now.getTime() - last >= LAST_USED_RESOLUTION_MS) {
      lastUsedWritten.set(key.id, now.getTime());
      try {
        await control.db.execute(sql`UPDATE api_keys SET last_used_at = ${now.toISOString()} WHERE id = ${key.id}`);
      } catch (err) {
        req.log.warn({ err: errorSummary(err) }, 'could not record lastUsedAt');
      }
    }
  });
}
