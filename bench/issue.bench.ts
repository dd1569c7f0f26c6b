/**
 * The benchmark of record for issuing (issue 17): the server starts exactly as `npm start` starts it
 * (`node --import tsx src/main.ts`, its own process, rate limit lifted by RATE_LIMIT_PER_MINUTE), and a
 * load generator in another process (bench/issue/load.ts) creates a draft and issues it per document,
 * BENCH_CONCURRENCY (default 32) in flight, spread over many businesses. In the same run the load
 * process measures the floor: a bare transaction that locks a counter row and inserts one row, on
 * the same database, at the same concurrency. Embedded default first, then server PostgreSQL
 * (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; skipped when unreachable).
 *
 * BENCH_DOCS (default 6000) documents per engine; BENCH_POOL_SIZE the server's and the prototype's DATABASE_POOL_SIZE
 * (default the server's, 10); BENCH_WEB_CONCURRENCY sets the server's WEB_CONCURRENCY
 * (default 0: one process); BENCH_ENGINES=embedded|server runs one engine; BENCH_CPU_PROF=dir profiles the server;
 * BENCH_WARMUP (default a tenth of BENCH_DOCS) documents are issued, and their PDFs made, before the measured run.
 * After the floors, the prototype-style floor (bench/issue/prototype.ts) runs the same load against a server
 * that does the same steps built bare, so the per-document figures of the two sit side by side.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import pg from 'pg';
import { startServer, killServer, tempDataDir, ROOT } from '../test/helpers/server-process.ts';
import { DATABASE_POOL_SIZE_DEFAULT } from '../src/platform/config.ts';
import { perDocument, snapshot, type StatsSource } from './issue/stats.ts';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const DOCS = Number(process.env.BENCH_DOCS ?? 6000);
const PER_BUSINESS = 250; // under the daily backstop of 300 documents per business
// BENCH_WARMUP: documents issued before the measured run (default a tenth of it).
const WARMUP = Number(process.env.BENCH_WARMUP ?? Math.round(DOCS / 10));
const BUSINESSES = Math.max(CONCURRENCY, Math.ceil((DOCS + WARMUP) / PER_BUSINESS));
const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const WEB_CONCURRENCY = process.env.BENCH_WEB_CONCURRENCY ?? '0';
// The server's connections a database (its default unless BENCH_POOL_SIZE), and the prototype's the same.
const POOL_SIZE = Number(process.env.BENCH_POOL_SIZE ?? DATABASE_POOL_SIZE_DEFAULT);
const ENGINES = process.env.BENCH_ENGINES ?? 'embedded,server';
const METRICS_TOKEN = 'bench-metrics-token-0123456789';
/** How long the PDF backlog left by the run may take to drain before the bench stops waiting. */
const PDF_DRAIN_MS = Number(process.env.BENCH_PDF_DRAIN_MS ?? 180_000);

function load(job: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/issue/load.ts'), JSON.stringify(job)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`load generator exited ${code}`))));
  });
}

interface Figures {
  n: number;
  ms: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
}
const line = (label: string, f: Figures, unit: string) =>
  console.log(
    `  ${label.padEnd(38)} ${String(f.perSecond).padStart(6)} ${unit}/s   p50 ${f.p50} ms   p95 ${f.p95} ms   p99 ${f.p99} ms   (${f.n} in ${f.ms} ms)`,
  );

interface Engine {
  name: string;
  env: Record<string, string>;
  /** The URL of one of the engine's databases (the sandbox: the bench issues with a test key). */
  sandboxUrl(dataDir: string): string;
  /** The bench's databases on the cluster, and whether the cluster is the bench's own. */
  databases: string[];
  ownCluster: boolean;
}

/** Waits until the render jobs left by the run are done (or PDF_DRAIN_MS passed); answers the time taken. */
async function drainPdfs(jobs: pg.Client): Promise<{ ms: number; left: number }> {
  const t0 = performance.now();
  for (;;) {
    const r = await jobs.query<{ n: string }>(`SELECT count(*) AS n FROM jobs WHERE kind = 'document.render' AND done_at IS NULL AND failed_at IS NULL`);
    const left = Number(r.rows[0].n);
    if (left === 0 || performance.now() - t0 > PDF_DRAIN_MS) return { ms: performance.now() - t0, left };
    await new Promise((r2) => setTimeout(r2, 250));
  }
}

/**
 * Vacuums and analyzes the bench's database and answers how long it took: the rows a run wrote leave work for
 * autovacuum (and ANALYZE of documents evaluates its search-text expressions), which would otherwise run during
 * the next measured run and be charged to it (the floors and the prototype run after pinkas).
 */
async function settle(admin: pg.Client): Promise<number> {
  const t0 = performance.now();
  await admin.query('VACUUM (ANALYZE)');
  return performance.now() - t0;
}

async function benchEngine(engine: Engine): Promise<void> {
  const dataDir = tempDataDir('pinkas-bench-issue-');
  const server = await startServer(dataDir, {
    // As it ships (its log level, its pool), the rate limit lifted.
    env: {
      RATE_LIMIT_PER_MINUTE: '10000000',
      DATABASE_POOL_SIZE: String(POOL_SIZE),
      WEB_CONCURRENCY,
      METRICS_TOKEN,
      ...engine.env,
    },
    // BENCH_CPU_PROF=dir writes a V8 CPU profile of the server process there (open it in Chrome's DevTools).
    // BENCH_NODE_ARGS: more node options for the server (a what-if: a V8 flag).
    nodeArgs: [
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
  });
  const sandboxUrl = engine.sandboxUrl(dataDir);
  const jobs = new pg.Client({ connectionString: sandboxUrl });
  const admin = new pg.Client({ connectionString: sandboxUrl });
  await jobs.connect();
  await admin.connect();
  try {
    // Function and trigger calls are counted by PostgreSQL once track_functions is on (the server's
    // databases have it set at creation; the embedded cluster is the bench's own).
    if (engine.ownCluster) await admin.query(`ALTER SYSTEM SET track_functions = 'pl'`).then(() => admin.query('SELECT pg_reload_conf()'));
    const key = server.firstKey();
    if (!key) throw new Error(`no first-start key printed:\n${server.stdout()}`);
    const { businessIds } = await load({ kind: 'setup', base: server.base, key, businesses: BUSINESSES });
    await load({ kind: 'issue', base: server.base, key, businessIds, docs: WARMUP, concurrency: CONCURRENCY, first: DOCS });
    await drainPdfs(jobs);
    const settledBefore = await settle(admin);
    const stats: StatsSource = {
      base: server.base,
      metricsToken: METRICS_TOKEN,
      serverPid: server.child.pid!,
      admin,
      databases: engine.databases,
      ownCluster: engine.ownCluster,
      jobs,
    };
    const before = await snapshot(stats);
    const r = await load({ kind: 'issue', base: server.base, key, businessIds, docs: DOCS, concurrency: CONCURRENCY, first: 0 });
    // Statistics reach the shared views when a backend goes idle: give them a moment.
    await new Promise((r2) => setTimeout(r2, 1500));
    const after = await snapshot(stats);
    const drained = await drainPdfs(jobs);
    const settled = [settledBefore, await settle(admin)];
    const floor = await load({ kind: 'floor', databaseUrl: sandboxUrl, businessIds, count: DOCS, concurrency: CONCURRENCY });
    settled.push(await settle(admin));
    const sqlFloor = await load({ kind: 'sqlFloor', databaseUrl: sandboxUrl, businessIds, count: DOCS, concurrency: CONCURRENCY });
    settled.push(await settle(admin));
    console.log(
      `${engine.name}: ${BUSINESSES} businesses, ${CONCURRENCY} in flight, WEB_CONCURRENCY=${WEB_CONCURRENCY}, ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)}`,
    );
    line('documents (draft + issue)', r.documents, 'docs');
    line('  of which POST …/documents', r.draft, 'req');
    line('  of which POST …/issue', r.issue, 'req');
    line('floor (counter lock + insert)', floor, 'tx');
    console.log(`  ratio documents/floor: ${(r.documents.perSecond / floor.perSecond).toFixed(2)}`);
    line("pinkas's SQL alone (2 statements a doc)", sqlFloor, 'docs');
    console.log(
      `  ratio documents/pinkas's SQL alone: ${(r.documents.perSecond / sqlFloor.perSecond).toFixed(2)}; pinkas's SQL alone/floor: ${(sqlFloor.perSecond / floor.perSecond).toFixed(2)}`,
    );
    // Its backends' CPU: what the two statements cost PostgreSQL, beside what the server's run cost it in all (PDFs, jobs, events, request log).
    if (sqlFloor.cpuMs !== null) console.log(`  pinkas's SQL alone: PostgreSQL CPU ${(sqlFloor.cpuMs / DOCS).toFixed(2)} ms a document`);
    for (const text of perDocument(before, after, after.issued - before.issued)) console.log(`  per document: ${text}`);
    await benchPrototype({ ...stats, databaseUrl: sandboxUrl, businessIds }, r.documents.perSecond);
    console.log(
      `  warm-up ${WARMUP} documents; the vacuum paid before pinkas's run, the floor, pinkas's SQL alone and the prototype: ${settled.map((ms) => (ms / 1000).toFixed(1)).join(' / ')} s`,
    );
    const total = after.pdfReady - before.pdfReady + (after.pdfBacklog - drained.left);
    const seconds = (r.documents.ms + drained.ms) / 1000;
    console.log(
      `  PDFs: the run's backlog drained in ${(drained.ms / 1000).toFixed(1)} s${drained.left ? ` (${drained.left} left)` : ''}; ${Math.round(total / seconds)} documents/s reached pdf_ready from the run's start to the drain's end`,
    );
  } finally {
    await jobs.end();
    await admin.end();
    // A clean stop: the server stops its embedded cluster (killed, the cluster would outlive it until PostgreSQL
    // noticed its data folder gone), and a CPU profile (BENCH_CPU_PROF) is written at a clean exit only.
    server.child.kill('SIGTERM');
    await Promise.race([server.exited, new Promise((r) => setTimeout(r, 60_000))]);
    await killServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The prototype-style floor (bench/issue/prototype.ts): the same steps as one round trip a request, in a
 * server built bare, driven by the same load generator on the same database.
 */
async function benchPrototype(src: StatsSource & { databaseUrl: string; businessIds: string[] }, pinkasPerSecond: number): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/issue/prototype.ts'), JSON.stringify({ databaseUrl: src.databaseUrl, key: 'prototype', poolSize: POOL_SIZE })],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(JSON.parse(d.toString().split('\n')[0]).port));
    child.once('exit', (code) => reject(new Error(`the prototype exited ${code}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  const proto: StatsSource = { ...src, base, serverPid: child.pid! };
  try {
    const job = { kind: 'issue', base, key: 'prototype', businessIds: src.businessIds, concurrency: CONCURRENCY };
    await load({ ...job, docs: Math.round(DOCS / 10), first: DOCS });
    const before = await snapshot(proto);
    const r = await load({ ...job, docs: DOCS, first: 0 });
    await new Promise((r2) => setTimeout(r2, 1500));
    const after = await snapshot(proto);
    line('prototype (same steps, built bare)', r.documents, 'docs');
    console.log(`  ratio documents/prototype: ${(pinkasPerSecond / r.documents.perSecond).toFixed(2)}`);
    for (const text of perDocument(before, after, after.issued - before.issued).slice(0, 3)) console.log(`  prototype per document: ${text}`);
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r2) => child.once('exit', r2));
    }
  }
}

function embeddedFloorUrl(dataDir: string): string {
  const cluster = JSON.parse(readFileSync(path.join(dataDir, 'postgres/cluster.json'), 'utf8')) as { port: number; user: string };
  const password = readFileSync(path.join(dataDir, 'postgres/password'), 'utf8').trim();
  return `postgres://${cluster.user}:${encodeURIComponent(password)}@127.0.0.1:${cluster.port}/pinkas_sandbox`;
}

if (ENGINES.includes('embedded')) {
  await benchEngine({
    name: 'embedded PostgreSQL (npm start default)',
    env: {},
    sandboxUrl: embeddedFloorUrl,
    databases: ['pinkas_live', 'pinkas_sandbox'],
    ownCluster: true,
  });
}

// Server PostgreSQL: two scratch databases, dropped afterwards.
const admin = new pg.Client({ connectionString: SERVER_URL });
admin.on('error', () => {});
let reachable = ENGINES.includes('server');
if (reachable) await admin.connect().catch(() => (reachable = false));
if (!ENGINES.includes('server')) {
  /* not asked for */
} else if (!reachable) console.log(`server PostgreSQL: skipped (${SERVER_URL} does not answer)`);
else {
  const names = { live: `bench_issue_live_${process.pid}`, sandbox: `bench_issue_sandbox_${process.pid}` };
  const url = (db: string) => Object.assign(new URL(SERVER_URL), { pathname: `/${db}` }).toString();
  for (const n of Object.values(names)) {
    await admin.query(`CREATE DATABASE ${n}`);
    await admin.query(`ALTER DATABASE ${n} SET track_functions = 'pl'`);
  }
  try {
    await benchEngine({
      name: 'server PostgreSQL (DATABASE_URL)',
      env: { DATABASE_URL: url(names.live), SANDBOX_DATABASE_URL: url(names.sandbox) },
      sandboxUrl: () => url(names.sandbox),
      databases: Object.values(names),
      ownCluster: false,
    });
  } finally {
    for (const n of Object.values(names)) await admin.query(`DROP DATABASE IF EXISTS ${n} WITH (FORCE)`);
    await admin.end();
  }
}
