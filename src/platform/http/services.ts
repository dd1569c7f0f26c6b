import type { Config } from '../config.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Database, Mode } from '../db/engine.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { RequestCounter } from '../usage.ts';

/** The process-wide dependencies every domain receives: injected, so tests swap clocks and databases. */
export interface Services {
  config: Config;
  clock: Clock;
  logger: Logger;
  /** live also holds the control plane: accounts, keys, plans. */
  databases: Record<Mode, Database>;
  rateLimiter: RateLimiter;
  requestCounter: RequestCounter;
}
