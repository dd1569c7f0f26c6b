import type { Config } from './platform/config.ts';
import type { Clock } from './platform/clock.ts';
import type { Logger } from './platform/logger.ts';
import type { Database, Mode } from './platform/db/engine.ts';
import type { Services } from './platform/http/services.ts';
import { MemoryRateLimiter, PostgresRateLimiter } from './platform/rate-limit.ts';
import { RequestCounter } from './platform/usage.ts';

/**
 * The composition root. The rate limiter follows the engine: in memory on the embedded engine
 * (one process, guaranteed by the data-folder lock, so no round trip per request), in the live
 * PostgreSQL database when several processes share a server.
 */
export function createServices(config: Config, clock: Clock, logger: Logger, databases: Record<Mode, Database>): Services {
  const rateLimiter =
    databases.live.engine === 'pglite'
      ? new MemoryRateLimiter(config.rateLimitPerMinute)
      : new PostgresRateLimiter(databases.live, config.rateLimitPerMinute);
  return { config, clock, logger, databases, rateLimiter, requestCounter: new RequestCounter(databases) };
}
