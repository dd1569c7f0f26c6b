import { sql, type SQL } from 'drizzle-orm';
import type { Database, Executor, Mode } from './db/engine.ts';
import { iso, isoOrNull, prepared, query } from './db/sql.ts';
import { newId } from './ids.ts';
import { insertInto } from './db/insert-values.ts';
import { jobs } from './db/tables.ts';
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';
import { errorSummary } from './logger.ts';
import { JOBS, type JobKind, type JobPayload } from './catalog/jobs.ts';
import { nextAttemptAt } from './retry-schedule.ts';
import { coalesce } from './coalesce.ts';

/** One job row; its kind is one of the catalog (catalog/jobs.ts), its payload that kind's. */
export interface Job<K extends JobKind = JobKind> {
  id: string;
  kind: K;
  businessId: string | null;
  refId: string;
  payload: JobPayload<K>;
  runAt: string;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  doneAt: string | null;
  failedAt: string | null;
}

// Rows are read by a kind of the catalog (getJob) or of a handler (the runner's claim).
const toJob = (r: Record<string, unknown>): Job => ({
  id: String(r.id),
  kind: String(r.kind) as JobKind,
  businessId: (r.business_id as string | null) ?? null,
  refId: String(r.ref_id),
  payload: (r.payload as JobPayload<JobKind>) ?? {},
  runAt: iso(r.run_at),
  attempts: Number(r.attempts),
  lastError: (r.last_error as string | null) ?? null,
  createdAt: iso(r.created_at),
  doneAt: isoOrNull(r.done_at),
  failedAt: isoOrNull(r.failed_at),
});

/** The payload may be left out when every field of the kind's payload is optional (or it has none). */
type PayloadOf<K extends JobKind> = Partial<JobPayload<K>> extends JobPayload<K> ? { payload?: JobPayload<K> } : { payload: JobPayload<K> };

/** Enqueues in the caller's transaction; a second enqueue of the same (kind, refId) is ignored. */
export type JobRequest<K extends JobKind = JobKind> = {
  kind: K;
  refId: string;
  businessId?: string | null;
  runAt?: Date;
} & PayloadOf<K>;

/** The INSERT of one job (once per kind and ref), for a caller that writes it with other rows. */
export function jobInsert<K extends JobKind>(at: Date, j: JobRequest<K>): SQL {
  const job = insertInto(jobs, {
    id: newId('job', at.getTime()),
    kind: j.kind,
    businessId: j.businessId ?? null,
    refId: j.refId,
    payload: j.payload ?? {},
    runAt: j.runAt ?? at,
    createdAt: at,
  });
  return sql`${job} ON CONFLICT (kind, ref_id) DO NOTHING`;
}

export async function enqueueJob<K extends JobKind>(tx: Executor, at: Date, j: JobRequest<K>): Promise<void> {
  await tx.execute(jobInsert(at, j));
}

/** Runs a job again from its first attempt (a failed or finished one is reset), or enqueues it when there is none. */
export async function rearmJob<K extends JobKind>(tx: Executor, at: Date, j: JobRequest<K>): Promise<void> {
  const rearmed = await query(
    tx,
    sql`UPDATE jobs SET failed_at = NULL, done_at = NULL, attempts = 0, locked_until = NULL, last_error = NULL, run_at = ${at.toISOString()}
        WHERE kind = ${j.kind} AND ref_id = ${j.refId} RETURNING id`,
  );
  if (rearmed.length === 0) await enqueueJob(tx, at, j);
}

export async function getJob(ex: Executor, kind: JobKind, refId: string): Promise<Job | undefined> {
  const rows = await query<Record<string, unknown>>(ex, sql`SELECT * FROM jobs WHERE kind = ${kind} AND ref_id = ${refId}`);
  return rows[0] ? toJob(rows[0]) : undefined;
}

/** Thrown by a handler when retrying cannot help: the job fails at once. */
export class PermanentJobError extends Error {}

/**
 * Thrown by a handler that is not ready yet (e.g. waiting for another area's answer): the job runs
 * again after `delayMs`, and the wait does not count as a failed attempt.
 */
export class RetryLaterError extends Error {
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
  }
}

/** Runs one kind of job; its retry policy (attempts, backoff) is the catalog's. */
export interface JobHandler<K extends JobKind = JobKind> {
  // Properties, not methods: parameters are then checked strictly (a handler of another kind's jobs is refused).
  handle: (job: Job<K>, database: Database) => Promise<void>;
  /** Called once when the job is marked failed (e.g. to emit an event). */
  onFailed?: (job: Job<K>, database: Database, error: string) => Promise<void>;
  /** How many jobs of this kind may run at once in one process (default 1: one after another). */
  concurrency?: number;
  /** True when `next` should start only once no other job of its kind runs (work that lets the process's requests go first). */
  yields?: (next: Job<K>) => boolean;
}

/** One handler for every job of the catalog, each given its own kind's jobs. */
export type JobHandlers = { [K in JobKind]: JobHandler<K> };

/** Ends the leases of unfinished jobs held by a dead process, so that they run again now. */
export async function releaseJobLeases(database: Database): Promise<number> {
  const rows = await query(
    database.db,
    sql`UPDATE jobs SET locked_until = NULL WHERE locked_until IS NOT NULL AND done_at IS NULL AND failed_at IS NULL RETURNING id`,
  );
  return rows.length;
}

/**
 * Runs due jobs of the kinds it has handlers for. Claims are short transactions (FOR UPDATE SKIP
 * LOCKED, a lease in locked_until), handlers run outside any transaction, so several processes
 * share the queue and a crashed process's job is picked up again when its lease ends.
 * Handlers must be idempotent: a job can run again after a crash.
 */
export class JobRunner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  /** Per database: marks a job done, together with others that finished meanwhile (one UPDATE for all). */
  private readonly finishers = new Map<Database, (id: string) => Promise<void>>();

  private readonly databases: Record<Mode, Database>;
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(
    deps: { databases: Record<Mode, Database>; clock: Clock; logger: Logger },
    private readonly handlers: Partial<JobHandlers>,
    private readonly opts: { leaseMs?: number; batch?: number } = {},
  ) {
    ({ databases: this.databases, clock: this.clock, logger: this.logger } = deps);
  }

  /**
   * Runs every job due now in one database; answers how many ran. Tests call this directly. Jobs run in the
   * order claimed; consecutive jobs of a kind whose handler allows several at once overlap, up to its
   * `concurrency`, and claiming goes on while they run (a kind that renders in a thread pool keeps it fed).
   * A job of another kind waits until those in flight are done, so kinds never interleave out of order.
   */
  async runDue(mode: Mode): Promise<number> {
    const kinds = Object.keys(this.handlers) as JobKind[];
    if (kinds.length === 0) return 0;
    const database = this.databases[mode];
    const inFlight = new Set<Promise<void>>();
    let failure: { err: unknown } | null = null;
    const settle = async (all: boolean) => {
      if (all) await Promise.all(inFlight);
      else await Promise.race(inFlight);
      if (failure) {
        await Promise.all(inFlight);
        throw failure.err;
      }
    };
    let total = 0;
    let kind: JobKind | null = null;
    for (;;) {
      const room = kind ? this.concurrency(kind) : 1;
      const claimed = await this.claim(database, kinds, Math.max(this.opts.batch ?? 10, room));
      if (claimed.length === 0) {
        if (inFlight.size === 0) return total;
        // Those in flight may schedule more (or free the queue): look again once they are done.
        await settle(true);
        kind = null;
        continue;
      }
      for (const job of claimed) {
        if (kind !== null && job.kind !== kind) await settle(true);
        while (inFlight.size >= (this.yields(job) ? 1 : this.concurrency(job.kind))) await settle(false);
        kind = job.kind;
        const run: Promise<void> = this.runOne(database, job)
          .catch((err: unknown) => void (failure ??= { err }))
          .finally(() => inFlight.delete(run));
        inFlight.add(run);
        total++;
      }
    }
  }

  private concurrency(kind: JobKind): number {
    return Math.max(1, this.handlers[kind]?.concurrency ?? 1);
  }

  private yields(job: Job): boolean {
    return (this.handlers[job.kind] as JobHandler | undefined)?.yields?.(job) ?? false;
  }

  /** Leases up to `limit` due jobs of `kinds` in one short transaction (SKIP LOCKED: other processes take others). */
  private async claim(database: Database, kinds: JobKind[], limit: number): Promise<Job[]> {
    const now = this.clock.now();
    const lease = new Date(now.getTime() + (this.opts.leaseMs ?? 120_000));
    // A named statement: PostgreSQL keeps its plan on the connection (sent unnamed, it was planned again at
    // every claim, ~0.3 ms, about one claim a document while PDFs render: bench/issue/profile-sql.ts, PROFILE_API=1).
    const rows = await database.db.transaction(async (tx) =>
      query<Record<string, unknown>>(
        tx,
        prepared(
          'jobs_claim',
          sql`UPDATE jobs SET locked_until = ${lease.toISOString()}, attempts = attempts + 1
              WHERE id IN (
                SELECT id FROM jobs
                WHERE kind IN ${kinds} AND done_at IS NULL AND failed_at IS NULL AND run_at <= ${now.toISOString()}
                  AND (locked_until IS NULL OR locked_until <= ${now.toISOString()})
                ORDER BY run_at, id LIMIT ${limit}
                FOR UPDATE SKIP LOCKED)
              RETURNING *`,
        ),
      ),
    );
    // RETURNING does not keep the subquery's order.
    return rows.map(toJob).sort((a, b) => (a.runAt === b.runAt ? (a.id < b.id ? -1 : 1) : a.runAt < b.runAt ? -1 : 1));
  }

  private async runOne(database: Database, job: Job): Promise<void> {
    // Only kinds with a handler are claimed, and the handler of a kind is given that kind's jobs.
    const handler = this.handlers[job.kind] as JobHandler;
    try {
      await handler.handle(job, database);
      await this.finisher(database)(job.id);
    } catch (err) {
      const message = errorSummary(err).message;
      if (err instanceof RetryLaterError) {
        const next = new Date(this.clock.now().getTime() + Math.max(0, err.delayMs));
        await database.db.execute(
          sql`UPDATE jobs SET run_at = ${next.toISOString()}, locked_until = NULL, attempts = attempts - 1, last_error = ${message} WHERE id = ${job.id}`,
        );
        return;
      }
      const permanent = err instanceof PermanentJobError;
      const now = this.clock.now();
      const next = permanent ? null : nextAttemptAt(JOBS[job.kind].retry, job.attempts, now);
      if (next === null) {
        await database.db.execute(sql`UPDATE jobs SET failed_at = ${now.toISOString()}, locked_until = NULL, last_error = ${message} WHERE id = ${job.id}`);
        this.logger.warn({ job: job.id, kind: job.kind, error: message }, 'job failed for good');
        await handler.onFailed?.(job, database, message).catch((e) => this.logger.error({ err: errorSummary(e) }, 'onFailed handler failed'));
      } else {
        await database.db.execute(sql`UPDATE jobs SET run_at = ${next.toISOString()}, locked_until = NULL, last_error = ${message} WHERE id = ${job.id}`);
        this.logger.info({ job: job.id, kind: job.kind, attempt: job.attempts, error: message }, 'job will be retried');
      }
    }
  }

  private finisher(database: Database): (id: string) => Promise<void> {
    let finish = this.finishers.get(database);
    if (!finish) {
      const done = coalesce<string, void>(
        async (ids) => {
          await query(
            database.db,
            prepared(
              'jobs_done',
              sql`UPDATE jobs SET done_at = ${this.clock.now().toISOString()}, locked_until = NULL, last_error = NULL WHERE id = ANY(${sql.param(ids)})`,
            ),
          );
          return ids.map(() => undefined);
        },
        { max: 100 },
      );
      this.finishers.set(database, (finish = done));
    }
    return finish;
  }

  /** Polls both databases every `pollMs` until stopped. */
  start(pollMs = 1_000): { stop(): Promise<void> } {
    const tick = async () => {
      for (const mode of ['live', 'sandbox'] as const) {
        try {
          await this.runDue(mode);
        } catch (err) {
          this.logger.error({ err: errorSummary(err), mode }, 'job runner tick failed');
        }
      }
    };
    const loop = () => {
      this.running = tick().finally(() => {
        if (this.timer !== null) this.timer = setTimeout(loop, pollMs);
      });
    };
    this.timer = setTimeout(loop, 0);
    return {
      stop: async () => {
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
        await this.running;
      },
    };
  }
}
