/**
 * What a domain is to the app (its own file: a domain declares itself without importing the list of
 * domains in domains.ts, which imports every domain).
 */
import type { Api } from './platform/http/api.ts';
import type { Services } from './platform/http/services.ts';
import type { JobHandlers } from './platform/jobs.ts';
import type { Database } from './platform/db/engine.ts';

export interface Worker {
  stop(): Promise<void>;
}

/** One area of the product: its routes and its background work. */
export interface Domain {
  name: string;
  /** Routes under /v1, behind the API key (auth, rate limit, scope and business guard already applied). */
  api?(api: Api, s: Services): void;
  /** Routes outside /v1: public links, the console. */
  root?(app: Api, s: Services): void | Promise<void>;
  /** Background work the server process runs (tests start it themselves, with their own clock). */
  worker?(s: Services): Worker;
  /**
   * Handlers of durable jobs (platform/catalog/jobs.ts), by job kind; one runner serves them all.
   * Across all domains every job of the catalog has exactly one (allJobHandlers checks it).
   */
  jobs?(s: Services): Partial<JobHandlers>;
  /**
   * Ends the leases (claims) of background work held by a process that died. Called at server start
   * on the embedded cluster only, where the data-folder lock proves no other process holds any.
   */
  releaseLeases?(database: Database): Promise<number>;
}
