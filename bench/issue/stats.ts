/**
 * What one document costs, read around the measured run of `bench/issue.bench.ts`: the server's round
 * trips and Node CPU from its own /metrics (pinkas_db_round_trips_total, process_cpu_seconds_total),
 * and from PostgreSQL its transactions, rows, WAL bytes, function and trigger calls (track_functions =
 * 'pl') and the CPU of the backends serving the bench's databases (/proc). The PDF jobs show how far
 * rendering kept up.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';

const CLOCK_TICKS_PER_SECOND = 100; // Linux's USER_HZ

export interface Snapshot {
  at: number;
  roundTrips: number;
  nodeCpuMs: number;
  /** The server's event-loop thread alone (the PDF pool's threads are the rest of nodeCpuMs). */
  mainThreadCpuMs: number;
  /** Of mainThreadCpuMs, the time in the kernel (socket writes to PostgreSQL and clients, loopback delivery included). */
  mainThreadKernelMs: number;
  issued: number;
  /** CPU of each backend serving the bench's databases, by process id. */
  pgCpuMs: Map<number, number>;
  walBytes: number;
  transactions: number;
  inserted: number;
  updated: number;
  functionCalls: Map<string, number>;
  pdfReady: number;
  pdfBacklog: number;
}

/** A Prometheus text's sum of one metric's series. */
function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** User + system CPU of a process (or of one of its threads, `/proc/<pid>/task/<tid>`), ms; 0 once it is gone. */
export function processCpuMs(pid: number, thread?: number, only?: 'kernel'): number {
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = only === 'kernel' ? Number(fields[12]) : Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

export interface StatsSource {
  base: string;
  metricsToken: string;
  /** The server's process (its main thread has the same id). */
  serverPid: number;
  /** A superuser connection to the cluster, and the bench's databases on it. */
  admin: pg.Client;
  databases: string[];
  /** The cluster is the bench's own (embedded): every backend and auxiliary process counts. */
  ownCluster: boolean;
  /** The database holding the PDF jobs (the sandbox: the bench issues with a test key). */
  jobs: pg.Client;
}

export async function snapshot(src: StatsSource): Promise<Snapshot> {
  const metrics = await (await fetch(`${src.base}/metrics`, { headers: { authorization: `Bearer ${src.metricsToken}` } })).text();
  await src.admin.query('SELECT pg_stat_clear_snapshot()');
  const backends = await src.admin.query<{ pid: number }>(
    src.ownCluster ? 'SELECT pid FROM pg_stat_activity' : 'SELECT pid FROM pg_stat_activity WHERE datname = ANY($1)',
    src.ownCluster ? [] : [src.databases],
  );
  const db = await src.admin.query<{ xacts: string; ins: string; upd: string }>(
    `SELECT sum(xact_commit + xact_rollback) AS xacts, sum(tup_inserted) AS ins, sum(tup_updated) AS upd FROM pg_stat_database WHERE datname = ANY($1)`,
    [src.databases],
  );
  const wal = await src.admin.query<{ bytes: string }>(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS bytes`);
  const calls = new Map<string, number>();
  for (const name of src.databases) {
    // pg_stat_user_functions is per database: read it through each database's own connection.
    const c = new pg.Client({ connectionString: Object.assign(new URL(connectionString(src.admin)), { pathname: `/${name}` }).toString() });
    await c.connect();
    try {
      const r = await c.query<{ funcname: string; calls: string }>('SELECT funcname, calls FROM pg_stat_user_functions');
      for (const f of r.rows) calls.set(f.funcname, (calls.get(f.funcname) ?? 0) + Number(f.calls));
    } finally {
      await c.end();
    }
  }
  const jobs = await src.jobs.query<{ ready: string; backlog: string }>(
    `SELECT count(*) FILTER (WHERE done_at IS NOT NULL) AS ready, count(*) FILTER (WHERE done_at IS NULL AND failed_at IS NULL) AS backlog
       FROM jobs WHERE kind = 'document.render'`,
  );
  return {
    at: performance.now(),
    roundTrips: metricSum(metrics, 'pinkas_db_round_trips_total'),
    nodeCpuMs: metricSum(metrics, 'process_cpu_seconds_total') * 1000,
    mainThreadCpuMs: processCpuMs(src.serverPid, src.serverPid),
    mainThreadKernelMs: processCpuMs(src.serverPid, src.serverPid, 'kernel'),
    issued: metricSum(metrics, 'pinkas_documents_issued_total'),
    pgCpuMs: new Map(backends.rows.map((b) => [b.pid, processCpuMs(b.pid)])),
    walBytes: Number(wal.rows[0].bytes),
    transactions: Number(db.rows[0].xacts),
    inserted: Number(db.rows[0].ins),
    updated: Number(db.rows[0].upd),
    functionCalls: calls,
    pdfReady: Number(jobs.rows[0].ready),
    pdfBacklog: Number(jobs.rows[0].backlog),
  };
}

function connectionString(c: pg.Client): string {
  const p = c as unknown as { user: string; password?: string; host: string; port: number; database: string };
  const auth = p.password ? `${p.user}:${encodeURIComponent(p.password)}` : p.user;
  return `postgres://${auth}@${p.host}:${p.port}/${p.database}`;
}

/**
 * PostgreSQL's CPU between two snapshots: each backend alive at the second, less what it had used at the
 * first (a backend that ended between them is not counted: its last figure is gone with it).
 */
function pgCpuBetween(before: Snapshot, after: Snapshot): number {
  let sum = 0;
  for (const [pid, ms] of after.pgCpuMs) sum += ms - (before.pgCpuMs.get(pid) ?? 0);
  return sum;
}

/** The per-document lines of a run between two snapshots. */
export function perDocument(before: Snapshot, after: Snapshot, docs: number): string[] {
  const per = (v: number) => (v / docs).toFixed(2);
  const calls = [...after.functionCalls].map(([name, n]) => [name, n - (before.functionCalls.get(name) ?? 0)] as const).filter(([, n]) => n > 0);
  const seconds = (after.at - before.at) / 1000;
  return [
    `round trips ${per(after.roundTrips - before.roundTrips)}   transactions ${per(after.transactions - before.transactions)}   rows inserted ${per(after.inserted - before.inserted)}   updated ${per(after.updated - before.updated)}`,
    `WAL ${((after.walBytes - before.walBytes) / docs / 1024).toFixed(1)} KB   Node CPU ${per(after.nodeCpuMs - before.nodeCpuMs)} ms (event loop ${per(after.mainThreadCpuMs - before.mainThreadCpuMs)} ms of which kernel ${per(after.mainThreadKernelMs - before.mainThreadKernelMs)} ms, the rest PDF threads)   PostgreSQL CPU ${per(pgCpuBetween(before, after))} ms`,
    `function and trigger calls ${per(calls.reduce((s, [, n]) => s + n, 0))}: ${calls
      .sort((a, b) => b[1] - a[1])
      .map(([name, n]) => `${name} ${per(n)}`)
      .join(', ')}`,
    `PDFs ready during the run ${Math.round((after.pdfReady - before.pdfReady) / seconds)}/s, backlog at its end ${after.pdfBacklog}`,
  ];
}
