import type { Config } from '../config.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Database, Mode } from '../db/engine.ts';
import type { InvalidationChannel } from '../db/invalidation.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { RequestCounter } from '../usage.ts';
import type { FileStores } from '../file-store/stores.ts';

/**
 * The process-wide dependencies every domain receives: injected, so tests swap clocks and databases.
 * A domain adds the clients it owns by augmenting this interface (`declare module`), so platform
 * imports no domain; src/services.ts makes every field once at start.
 */
export interface Services {
  config: Config;
  clock: Clock;
  logger: Logger;
  /** live also holds the control plane: accounts, keys, plans. */
  databases: Record<Mode, Database>;
  /** Per database, the LISTEN connection that keeps the domains' caches current (one when live and sandbox are one database). */
  invalidation: Record<Mode, InvalidationChannel>;
  rateLimiter: RateLimiter;
  requestCounter: RequestCounter;
  /** Per database mode, where stored files' bytes are (platform/file-store; docs/files.md). */
  fileStores: Record<Mode, FileStores>;
}

/**
 * True when this process is the only one answering requests on its databases: the embedded cluster
 * (one server per data folder, by its lock) with one process (WEB_CONCURRENCY=0) or one web worker
 * beside the background worker (WEB_CONCURRENCY=1). State that the request-serving processes must
 * share (rate limits, the key-guessing throttle) may then stay in memory.
 */
export function soleProcess(s: Pick<Services, 'config' | 'databases'>): boolean {
  return s.databases.live.kind === 'embedded' && s.config.processes.webWorkers <= 1;
}
