/**
 * pinkas's job queue (src/platform/jobs.ts) against graphile-worker (issue 33, item 6), on the same
 * server PostgreSQL (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test), in one
 * scratch database that both use, in alternating rounds:
 *
 *  - enqueue: BENCH_JOBS (default 5,000) business transactions, BENCH_CONCURRENCY (16) in flight, each
 *    inserting a row and adding its job; against the row alone: transactions/s and ms added per transaction;
 *  - drain: the same jobs run by a runner of the same concurrency with a trivial idempotent handler (the
 *    row counts its runs): jobs/s, and each row ran exactly once;
 *  - checks: a rolled-back transaction leaves no job, a second add in the transaction is ignored, and an
 *    add after the job finished (what `issue_document` relies on: one render job per document, ever);
 *  - a handler that throws once: the delay to its second attempt;
 *  - crash: a runner in a child process (bench/jobs/crash-child.ts) claims a long job and is killed with
 *    SIGKILL, a new runner starts; time until the job runs again, up to BENCH_JOBS_CRASH_BOUND_S (60 s).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../src/platform/db/engine.ts';
import { releaseJobLeases } from '../src/platform/jobs.ts';
import { serverDatabases } from './databases.ts';
import { graphileQueue, pinkasQueue, type Handle, type Queue } from './jobs/queues.ts';

const N = Number(process.env.BENCH_JOBS ?? 5_000);
const C = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BOUND_MS = Number(process.env.BENCH_JOBS_CRASH_BOUND_S ?? 60) * 1000;
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'jobs/crash-child.ts');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Waits until `done()`; a runner that stopped working fails the bench instead of hanging it. */
async function until(done: () => boolean | Promise<boolean>, what: string, boundMs = 600_000): Promise<void> {
  const t0 = performance.now();
  while (!(await done())) {
    if (performance.now() - t0 > boundMs) throw new Error(`${what}: not within ${boundMs / 1000} s`);
    await sleep(5);
  }
}
const refsOf = (prefix: string, n = N) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

/** What a business transaction adds beside its row (nothing for the row alone). */
type Add = (tx: Executor, ref: string) => Promise<unknown>;

/** N transactions, C in flight: the business row, and what `add` adds. */
async function transactions(db: Database, refs: string[], add?: Add) {
  const ms: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < refs.length) {
        const ref = refs[next++];
        const t = performance.now();
        await db.db.transaction(async (tx) => {
          await tx.execute(sql`INSERT INTO bench_items(id) VALUES (${ref})`);
          if (add) await add(tx, ref);
        });
        ms.push(performance.now() - t);
      }
    }),
  );
  return { perSecond: (refs.length / (performance.now() - t0)) * 1000, meanMs: ms.reduce((a, b) => a + b, 0) / ms.length };
}

/** The handler of the drain: the row counts its runs (idempotent in effect: the bench checks it ran once). */
const markDone =
  (db: Database, onRun: () => void): Handle =>
  async (ref) => {
    await db.pool.query('UPDATE bench_items SET runs = runs + 1 WHERE id = $1', [ref]);
    onRun();
  };

/** Runs the jobs of `refs` with a fresh runner: jobs/s until none is left in the queue, and how often each ran. */
async function drain(db: Database, queue: Queue, refs: string[]) {
  let ran = 0;
  const t0 = performance.now();
  const runner = await queue.start(
    markDone(db, () => ran++),
    C,
  );
  await until(() => ran >= refs.length, `${queue.name} drain`);
  await until(async () => (await queue.pending(refs)) === 0, `${queue.name} drain`);
  const ms = performance.now() - t0;
  await runner.stop();
  const r = await db.pool.query<{ once: number; more: number; never: number }>(
    `SELECT count(*) FILTER (WHERE runs = 1)::int AS once, count(*) FILTER (WHERE runs > 1)::int AS more, count(*) FILTER (WHERE runs = 0)::int AS never
     FROM bench_items WHERE id = ANY($1)`,
    [refs],
  );
  return { perSecond: (refs.length / ms) * 1000, ...r.rows[0] };
}

async function enqueueOne(
  db: Database,
  queue: Queue,
  { ref, times = 1, rollBack = false }: { ref: string; times?: number; rollBack?: boolean },
): Promise<void> {
  await db.db
    .transaction(async (tx) => {
      await tx.execute(sql`INSERT INTO bench_items(id) VALUES (${ref})`);
      for (let i = 0; i < times; i++) await queue.enqueue(tx, ref);
      if (rollBack) throw new Error('roll back');
    })
    .catch((err: Error) => {
      if (!rollBack) throw err;
    });
}

/** Starts a runner and answers when `ref`'s job runs (ms from `since`), or null after `boundMs`; the runner is stopped. */
async function timeToRun(queue: Queue, ref: string, since: number, boundMs: number): Promise<number | null> {
  let at: number | null = null;
  const runner = await queue.start(async (r) => {
    if (r === ref) at ??= performance.now();
  }, 1);
  while (at === null && performance.now() - since < boundMs) await sleep(10);
  await runner.stop();
  return at === null ? null : at - since;
}

/** A job added while its runner idles: ms until the handler starts, median of `samples`, added at random moments. */
async function pickup(db: Database, queue: Queue, samples: number): Promise<number> {
  const started = new Map<string, number>();
  const runner = await queue.start(async (ref) => void started.set(ref, performance.now()), 1);
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    await sleep(300 + Math.random() * 1_000);
    const ref = `pickup-${queue.name}-${i}`;
    const t = performance.now();
    await enqueueOne(db, queue, { ref });
    await until(() => started.has(ref), `${queue.name} pickup`);
    ms.push(started.get(ref)! - t);
  }
  await runner.stop();
  return median(ms);
}

/** A handler that throws on the first attempt: the delay from that attempt to the second. */
async function retryDelay(db: Database, queue: Queue): Promise<number | null> {
  const ref = `throw-${queue.name}`;
  await enqueueOne(db, queue, { ref });
  let first: number | null = null;
  let second: number | null = null;
  const runner = await queue.start(async (r) => {
    if (r !== ref) return;
    if (first === null) {
      first = performance.now();
      throw new Error('first attempt fails');
    }
    second ??= performance.now();
  }, 1);
  const t0 = performance.now();
  while (second === null && performance.now() - t0 < 30_000) await sleep(10);
  await runner.stop();
  return first !== null && second !== null ? second - first : null;
}

/** Claims `ref`'s job in a child process, kills it with SIGKILL once it holds the job; answers the moment of the kill. */
async function killHolder(url: string, queue: Queue, ref: string, leaseMs?: number): Promise<number> {
  const env = { ...process.env, JOBS_CHILD_URL: url, JOBS_CHILD_QUEUE: queue.name, ...(leaseMs ? { JOBS_CHILD_LEASE_MS: String(leaseMs) } : {}) };
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((r) => child.on('exit', r));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('claimed') && resolve());
    child.on('exit', (code) => reject(new Error(`crash child exited ${code} before claiming ${ref}`)));
  });
  child.kill('SIGKILL');
  const at = performance.now();
  await exited;
  return at;
}

const s = (ms: number | null) => (ms === null ? `not within ${BOUND_MS / 1000} s` : `${(ms / 1000).toFixed(2)} s`);

async function main() {
  const set = await serverDatabases(C + 4);
  if (!set) return;
  const db = set.live;
  const url = (db.pool.options as { connectionString: string }).connectionString;
  const gpool = new pg.Pool({ connectionString: url, max: C + 4 });
  // graphile-worker asks for both (an idle client that loses its server must not crash the process).
  gpool.on('error', () => {});
  gpool.on('connect', (client) => client.on('error', () => {}));
  try {
    await db.pool.query('CREATE TABLE bench_items (id text PRIMARY KEY, runs int NOT NULL DEFAULT 0)');
    const queues = [pinkasQueue(db), await graphileQueue(gpool)];
    const [pinkas, graphile] = queues;
    console.log(`${os.cpus().length} cores, ${N} jobs a measure, ${C} in flight, ${ROUNDS} rounds, Node ${process.version}; load ${load()}`);

    // What a transaction adds beside its row. The last two explain graphile-worker's cost: add_job
    // without a job_key, and the pg_notify that add_job sends (a NOTIFY takes a cluster-wide lock at commit).
    const writes: { name: string; add?: Add }[] = [
      { name: 'row alone' },
      { name: 'pinkas', add: pinkas.enqueue },
      { name: 'graphile-worker', add: graphile.enqueue },
      {
        name: 'graphile-worker, no job_key',
        add: (tx, ref) => tx.execute(sql`SELECT graphile_worker.add_job('bench', json_build_object('ref', ${ref}::text))`),
      },
      { name: 'row + pg_notify (no queue)', add: (tx, ref) => tx.execute(sql`SELECT pg_notify('bench_jobs', ${ref})`) },
    ];
    const keyless = () => gpool.query('DELETE FROM graphile_worker._private_jobs WHERE key IS NULL'); // not drained: the runner would take them

    // Warm-up, not measured: connections, prepared plans, the tables' first pages.
    for (const w of writes) await transactions(db, refsOf(`warm-${w.name}`, 300), w.add);
    await keyless();
    for (const q of queues) await drain(db, q, refsOf(`warm-${q.name}`, 300));

    const tps = new Map(writes.map((w) => [w.name, [] as number[]]));
    const extra = new Map(writes.map((w) => [w.name, [] as number[]]));
    const drained = new Map(queues.map((q) => [q, [] as number[]]));
    for (let round = 0; round < ROUNDS; round++) {
      const parts: string[] = [];
      const ms = new Map<string, number>();
      for (const w of round % 2 === 0 ? writes : [...writes].reverse()) {
        const e = await transactions(db, refsOf(`r${round}-${w.name}`), w.add);
        tps.get(w.name)!.push(e.perSecond);
        ms.set(w.name, e.meanMs);
        parts.push(`${w.name} ${e.perSecond.toFixed(0)} tx/s`);
      }
      await keyless();
      for (const w of writes) extra.get(w.name)!.push(ms.get(w.name)! - ms.get('row alone')!);
      for (const q of round % 2 === 0 ? queues : [...queues].reverse()) {
        const d = await drain(db, q, refsOf(`r${round}-${q.name}`));
        drained.get(q)!.push(d.perSecond);
        if (d.once !== N) throw new Error(`${q.name}: ${d.once} of ${N} jobs ran once (${d.more} more than once, ${d.never} never)`);
        parts.push(`drain ${q.name} ${d.perSecond.toFixed(0)} jobs/s (each once)`);
      }
      console.log(`round ${round + 1}: ${parts.join('; ')}; load ${load()}`);
    }

    console.log('\nmedians of the rounds:');
    console.log(`  a business transaction (row + job), ${C} in flight:`);
    for (const w of writes)
      console.log(
        `    ${w.name.padEnd(28)} ${median(tps.get(w.name)!).toFixed(0).padStart(5)} tx/s   +${median(extra.get(w.name)!).toFixed(2)} ms a transaction`,
      );
    console.log(`  drain, ${C} at once, every job ran once:`);
    for (const q of queues) console.log(`    ${q.name.padEnd(28)} ${median(drained.get(q)!).toFixed(0).padStart(5)} jobs/s`);

    console.log('\nchecks:');
    for (const q of queues) {
      await enqueueOne(db, q, { ref: `rolled-back-${q.name}`, times: 1, rollBack: true });
      await enqueueOne(db, q, { ref: `twice-${q.name}`, times: 2 });
      const finished = `r0-${q.name}-0`;
      await q.enqueue(db.db, finished);
      const again = await q.pending([finished]);
      console.log(
        `  ${q.name.padEnd(16)} rolled back: ${await q.rows([`rolled-back-${q.name}`])} job; added twice in one transaction: ${await q.rows([`twice-${q.name}`])} job; ` +
          `added again after it ran: ${again === 0 ? 'ignored' : `${again} new job (runs again)`}`,
      );
      if (again > 0) await gpool.query('DELETE FROM graphile_worker._private_jobs WHERE key = $1', [finished]);
    }
    for (const q of queues)
      console.log(`  ${q.name.padEnd(16)} a job added to an idle runner starts after ${(await pickup(db, q, 15)).toFixed(0)} ms (median of 15)`);
    for (const q of queues) console.log(`  ${q.name.padEnd(16)} handler throws once: next attempt ${s(await retryDelay(db, q))} later`);

    console.log(`\ncrash (SIGKILL of the runner holding the job; a new runner starts; time from the kill until the job runs again):`);
    const crash = async (label: string, q: Queue, recover: (ref: string) => Promise<void>, leaseMs?: number) => {
      const ref = `crash-${label.replace(/\W+/g, '-')}`;
      await enqueueOne(db, q, { ref });
      const killed = await killHolder(url, q, ref, leaseMs);
      await recover(ref);
      console.log(`  ${label.padEnd(64)} ${s(await timeToRun(q, ref, killed, BOUND_MS))}`);
    };
    await crash('pinkas, releaseJobLeases at start (embedded server)', pinkas, async () => void (await releaseJobLeases(db)));
    await crash('pinkas, no release, lease 10 s (the default is 120 s)', pinkas, async () => {}, 10_000);
    await crash('graphile-worker, as documented (locked for 4 h)', graphile, async () => {});
    await crash('graphile-worker, forceUnlockWorkers(the dead worker) at start', graphile, async (ref) => {
      const r = await gpool.query<{ locked_by: string }>('SELECT locked_by FROM graphile_worker.jobs WHERE key = $1', [ref]);
      await gpool.query('SELECT graphile_worker.force_unlock_workers($1)', [r.rows.map((x) => x.locked_by)]);
    });
    console.log(`load at the end ${load()}`);
  } finally {
    await gpool.end();
    await set.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
