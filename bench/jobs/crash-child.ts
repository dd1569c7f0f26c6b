/**
 * The runner that bench/jobs.bench.ts kills: it claims the crash job of JOBS_CHILD_QUEUE (pinkas or
 * graphile-worker) on JOBS_CHILD_URL, records the attempt in the business row, prints `claimed`
 * and holds the job until it is killed (SIGKILL: no handler of any kind runs).
 * JOBS_CHILD_LEASE_MS sets pinkas's lease (default: JobRunner's, 120 s).
 */
import pg from 'pg';
import { openPool } from '../../src/platform/db/engine.ts';
import { graphileQueue, pinkasQueue, type Queue } from './queues.ts';

const url = process.env.JOBS_CHILD_URL!;
const which = process.env.JOBS_CHILD_QUEUE;
const leaseMs = process.env.JOBS_CHILD_LEASE_MS ? Number(process.env.JOBS_CHILD_LEASE_MS) : undefined;

const pool = new pg.Pool({ connectionString: url, max: 4 });
pool.on('error', () => {});
pool.on('connect', (client) => client.on('error', () => {}));
const queue: Queue = which === 'pinkas' ? pinkasQueue(await openPool('live', url, { poolSize: 4, kind: 'server' })) : await graphileQueue(pool);
await queue.start(
  async (ref) => {
    await pool.query('UPDATE bench_items SET runs = runs + 1 WHERE id = $1', [ref]);
    process.stdout.write('claimed\n');
    await new Promise(() => {}); // a long job: never ends before the kill
  },
  1,
  { leaseMs },
);
