/**
 * The two queues of bench/jobs.bench.ts behind one small face: enqueue a job in the caller's
 * transaction, start a runner, count its jobs. pinkas's is src/platform/jobs.ts as the app uses it;
 * graphile-worker's is its documented API (`add_job` in SQL, `run` with a task list).
 */
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { Logger, run, runMigrations, type Runner } from 'graphile-worker';
import type { Database, Executor } from '../../src/platform/db/engine.ts';
import { enqueueJob, JobRunner } from '../../src/platform/jobs.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';

// graphile-worker logs through its own Logger; the bench prints its figures only.
const silent = new Logger(() => () => {});

/** What a job does: told its ref (the business row's id); may throw. */
export type Handle = (ref: string) => Promise<void>;

export interface Queue {
  name: 'pinkas' | 'graphile-worker';
  /** Adds the job of `ref` in the caller's transaction; a second add of the same ref is ignored. */
  enqueue(tx: Executor, ref: string): Promise<void>;
  /** Starts a runner of `concurrency` jobs at once that calls `handle` for each job. */
  start(handle: Handle, concurrency: number, opts?: { leaseMs?: number }): Promise<{ stop(): Promise<void> }>;
  /** Jobs of these refs still in the queue (not done, not failed). */
  pending(refs: string[]): Promise<number>;
  /** Job rows of these refs, in any state (pinkas keeps finished jobs; graphile-worker deletes them). */
  rows(refs: string[]): Promise<number>;
}

/** The production poll of pinkas's runner (JobRunner.start's default). */
const PINKAS_POLL_MS = 1_000;

export function pinkasQueue(database: Database): Queue {
  return {
    name: 'pinkas',
    enqueue: (tx, ref) => enqueueJob(tx, new Date(), { kind: 'document.render', refId: ref }),
    async start(handle, concurrency, opts = {}) {
      const runner = new JobRunner(
        { databases: { live: database, sandbox: database }, clock: systemClock, logger: createLogger('silent') },
        { 'document.render': { concurrency, handle: (job) => handle(job.refId) } },
        { leaseMs: opts.leaseMs, batch: concurrency },
      );
      // Only the live database: the bench's jobs are there (start() would poll the same one twice).
      let stopped = false;
      const loop = (async () => {
        while (!stopped) {
          await runner.runDue('live').catch((err: unknown) => console.error('pinkas runner:', err));
          if (!stopped) await new Promise((r) => setTimeout(r, PINKAS_POLL_MS));
        }
      })();
      return {
        stop: async () => {
          stopped = true;
          await loop;
        },
      };
    },
    pending: async (refs) => count(database.pool, `SELECT count(*)::int AS n FROM jobs WHERE ref_id = ANY($1) AND done_at IS NULL AND failed_at IS NULL`, refs),
    rows: async (refs) => count(database.pool, `SELECT count(*)::int AS n FROM jobs WHERE ref_id = ANY($1)`, refs),
  };
}

/** `pool` serves graphile-worker's runners (its LISTEN connection included); its schema is migrated first. */
export async function graphileQueue(pool: pg.Pool): Promise<Queue> {
  await runMigrations({ pgPool: pool, logger: silent });
  return {
    name: 'graphile-worker',
    // job_key + unsafe_dedupe: a second add of the same key while the job exists does nothing (pinkas's ON CONFLICT DO NOTHING).
    enqueue: async (tx, ref) =>
      void (await tx.execute(
        sql`SELECT graphile_worker.add_job('bench', json_build_object('ref', ${ref}::text), job_key := ${ref}::text, job_key_mode := 'unsafe_dedupe')`,
      )),
    async start(handle, concurrency) {
      const runner: Runner = await run({
        pgPool: pool,
        concurrency,
        noHandleSignals: true,
        logger: silent,
        taskList: { bench: (payload) => handle((payload as { ref: string }).ref) },
      });
      return { stop: () => runner.stop() };
    },
    pending: async (refs) => count(pool, `SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = ANY($1)`, refs),
    rows: async (refs) => count(pool, `SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = ANY($1)`, refs),
  };
}

async function count(pool: pg.Pool, text: string, refs: string[]): Promise<number> {
  return (await pool.query<{ n: number }>(text, [refs])).rows[0].n;
}
