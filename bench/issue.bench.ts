/**
 * The benchmark of record for issuing (issue 17): the server starts exactly as `npm start` starts it
 * (`node --import tsx src/main.ts`, its own process, rate limit lifted by RATE_LIMIT_PER_MINUTE), and a
 * load generator in another process (bench/issue/load.ts) creates a draft and issues it per document,
 * BENCH_CONCURRENCY (default 32) in flight, spread over many businesses. In the same run the load
 * process measures the floor: a bare transaction that locks a counter row and inserts one row, on
 * the same database, at the same concurrency. Embedded default first, then server PostgreSQL
 * (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; skipped when unreachable).
 *
 * BENCH_DOCS (default 6000) documents per engine; BENCH_WEB_CONCURRENCY sets the server's WEB_CONCURRENCY
 * (default 0: one process); BENCH_ENGINES=embedded|server runs one engine; BENCH_CPU_PROF=dir profiles the server.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import pg from 'pg';
import { startServer, killServer, tempDataDir, ROOT } from '../test/helpers/server-process.ts';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const DOCS = Number(process.env.BENCH_DOCS ?? 6000);
const PER_BUSINESS = 250; // under the daily backstop of 300 documents per business
const BUSINESSES = Math.max(CONCURRENCY, Math.ceil((DOCS + DOCS / 10) / PER_BUSINESS));
const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const WEB_CONCURRENCY = process.env.BENCH_WEB_CONCURRENCY ?? '0';
const ENGINES = process.env.BENCH_ENGINES ?? 'embedded,server';

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

async function benchEngine(name: string, env: Record<string, string>, floorUrl: (dataDir: string) => string): Promise<void> {
  const dataDir = tempDataDir('pinkas-bench-issue-');
  const server = await startServer(dataDir, {
    env: {
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '10000000',
      DATABASE_POOL_SIZE: String(process.env.BENCH_POOL_SIZE ?? CONCURRENCY),
      WEB_CONCURRENCY,
      ...env,
    },
    // BENCH_CPU_PROF=dir writes a V8 CPU profile of the server process there (open it in Chrome's DevTools).
    nodeArgs: process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [],
  });
  try {
    const key = server.firstKey();
    if (!key) throw new Error(`no first-start key printed:\n${server.stdout()}`);
    const { businessIds } = await load({ kind: 'setup', base: server.base, key, businesses: BUSINESSES });
    const r = await load({ kind: 'issue', base: server.base, key, businessIds, docs: DOCS, concurrency: CONCURRENCY, warmup: Math.round(DOCS / 10) });
    const floor = await load({ kind: 'floor', databaseUrl: floorUrl(dataDir), businessIds, count: DOCS, concurrency: CONCURRENCY });
    console.log(
      `${name}: ${BUSINESSES} businesses, ${CONCURRENCY} in flight, WEB_CONCURRENCY=${WEB_CONCURRENCY}, ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)}`,
    );
    line('documents (draft + issue)', r.documents, 'docs');
    line('  of which POST …/documents', r.draft, 'req');
    line('  of which POST …/issue', r.issue, 'req');
    line('floor (counter lock + insert)', floor, 'tx');
    console.log(`  ratio documents/floor: ${(r.documents.perSecond / floor.perSecond).toFixed(2)}`);
  } finally {
    if (process.env.BENCH_CPU_PROF) {
      // A profile is written at a clean exit only.
      server.child.kill('SIGTERM');
      await Promise.race([server.exited, new Promise((r) => setTimeout(r, 60_000))]);
    }
    await killServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function embeddedFloorUrl(dataDir: string): string {
  const cluster = JSON.parse(readFileSync(path.join(dataDir, 'postgres/cluster.json'), 'utf8')) as { port: number; user: string };
  const password = readFileSync(path.join(dataDir, 'postgres/password'), 'utf8').trim();
  return `postgres://${cluster.user}:${encodeURIComponent(password)}@127.0.0.1:${cluster.port}/pinkas_sandbox`;
}

if (ENGINES.includes('embedded')) await benchEngine('embedded PostgreSQL (npm start default)', {}, embeddedFloorUrl);

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
  for (const n of Object.values(names)) await admin.query(`CREATE DATABASE ${n}`);
  try {
    await benchEngine('server PostgreSQL (DATABASE_URL)', { DATABASE_URL: url(names.live), SANDBOX_DATABASE_URL: url(names.sandbox) }, () =>
      url(names.sandbox),
    );
  } finally {
    for (const n of Object.values(names)) await admin.query(`DROP DATABASE IF EXISTS ${n} WITH (FORCE)`);
    await admin.end();
  }
}
