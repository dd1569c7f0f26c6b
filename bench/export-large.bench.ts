/**
 * OPENFRMT export of large books (issue 17: 1,000,000 documents in under 60 s, the process under
 * 300 MB RSS). On server PostgreSQL (scratch databases of TEST_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test; skipped when unreachable): seeds BENCH_EXPORT_SIZE
 * (default 1,000,000) issued documents into one business (bench/seed/documents.ts), then exports the
 * whole range in a child process of its own, so that the child's peak RSS (VmHWM, the kernel's
 * high-water mark) is the export's alone: wall time per step (verification runs beside the writing,
 * so "verify" is only what is left of it once the zip is closed), CPU time of the process and of its
 * main thread (on a shared machine the better figure), PostgreSQL's CPU for the export (its backends, read
 * from /proc when the server runs on this machine), the load average, RSS, zip size, verification.
 *
 *   npm run bench -- export-large
 *   BENCH_EXPORT_SIZE=200000 npm run bench -- export-large
 *   BENCH_DB_PREFIX=hexp_ …  names the scratch databases hexp_<pid>_… (default pinkas_bench_)
 *   BENCH_EXPORT_KEEP=1 …   keeps the scratch databases and prints how to export them again:
 *   BENCH_EXPORT_URL=postgres://…/db BENCH_EXPORT_BUSINESS=biz_… BENCH_EXPORT_ACCOUNT=acc_… npx tsx bench/export-large.bench.ts
 *   (then drop them: DROP DATABASE …); BENCH_EXPORT_FROM / BENCH_EXPORT_TO (YYYY-MM-DD) export part of the range;
 *   BENCH_EXPORT_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" gives the child's node options (a profile per thread);
 *   BENCH_EXPORT_CHUNK=250 reads that many documents a chunk.
 *
 * The child loads the export's path only (exports/run.ts and the services it reads: config, clock, logger,
 * file stores), as a process that only exports would; the business is read by the parent and handed over.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { loadConfig } from '../src/platform/config.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createLogger } from '../src/platform/logger.ts';
import { openPool } from '../src/platform/db/engine.ts';
import { createFileStores } from '../src/platform/file-store/stores.ts';
import type { BusinessRecord } from '../src/businesses/index.ts';
import { runOpenfrmtExport } from '../src/exports/run.ts';
// The heap's growth as the server sets it (src/main.ts), so that the export's child measures what the server would.
import '../src/platform/heap.ts';

const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;
const config = () => loadConfig({ PINKAS_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '10000000', DATA_DIR: '/nonexistent' });

/** The application_name of the export's connections. */
const EXPORT_APPLICATION = 'pinkas-export-bench';

/** utime + stime in ms (clock ticks of 10 ms) from a /proc stat file; null when it cannot be read (ended, or not on this machine). */
function statCpuMs(path: string): number | null {
  try {
    const stat = readFileSync(path, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return null;
  }
}

/** CPU milliseconds of the whole process and of its main thread (the rest: the verifier thread, zlib's pool, GC helpers). */
function cpuMs(): { process: number; mainThread: number } {
  const u = process.cpuUsage();
  return { process: Math.round((u.user + u.system) / 1000), mainThread: statCpuMs(`/proc/self/task/${process.pid}/stat`) ?? 0 };
}

/**
 * PostgreSQL's CPU for the export: the backends of the export's connections (pg_stat_activity), read from /proc
 * (a server on this machine) before the run, every 250 ms and as each step begins, summed per backend from its
 * first reading (0 for a backend born during the run). A backend that ends between two readings loses its last
 * quarter second; null when /proc has none of them (a remote server).
 */
async function postgresCpu(url: string): Promise<{ step(name: string): void; stop(): Promise<{ total: number | null; steps: Record<string, number> }> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let started = false;
  const read = async () => {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [
      EXPORT_APPLICATION,
    ]);
    for (const { pid } of rows) {
      const ms = statCpuMs(`/proc/${pid}/stat`);
      if (ms === null) continue;
      if (!first.has(pid)) first.set(pid, started ? 0 : ms);
      last.set(pid, ms);
    }
  };
  const sum = () => {
    let total = 0;
    for (const [pid, ms] of last) total += ms - first.get(pid)!;
    return total;
  };
  await read();
  started = true;
  let reading: Promise<void> = Promise.resolve();
  const readSoon = () => (reading = reading.then(read, read));
  const timer = setInterval(readSoon, 250);
  const marks: [string, number][] = [];
  return {
    step(name) {
      void readSoon().then(() => marks.push([name, sum()]));
    },
    async stop() {
      clearInterval(timer);
      await readSoon().catch(() => {});
      await client.end();
      const total = sum();
      const steps = Object.fromEntries(marks.map(([name, at], i) => [name, (marks[i + 1]?.[1] ?? total) - at]));
      return { total: last.size ? total : null, steps };
    },
  };
}

function vm(field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : process.resourceUsage().maxRSS * 1024;
}

/** The child: one export of the business's whole range, then one JSON line of figures. */
async function exportOnly(url: string, business: BusinessRecord, accountId: string): Promise<void> {
  // Its connections are named, so that PostgreSQL's CPU counts theirs only (not another process's on the same books).
  const named = new URL(url);
  named.searchParams.set('application_name', EXPORT_APPLICATION);
  const sandbox = await openPool('sandbox', named.toString(), { poolSize: 4 });
  try {
    // The export path alone: the services a run reads (exports/run.ts ExportServices), not the API's.
    const cfg = config();
    const s = { config: cfg, clock: systemClock, logger: createLogger('silent'), fileStores: createFileStores(cfg.files) };
    const whole = (
      await sandbox.pool.query(`SELECT min(document_date)::text AS f, max(document_date)::text AS t FROM documents WHERE business_id = $1`, [business.id])
    ).rows[0];
    // BENCH_EXPORT_FROM / BENCH_EXPORT_TO narrow the range (a shorter run of the same books).
    const range = { f: process.env.BENCH_EXPORT_FROM ?? whole.f, t: process.env.BENCH_EXPORT_TO ?? whole.t };
    const rssBefore = vm('VmRSS');
    const pgCpu = await postgresCpu(url);
    const peakOf: Record<string, number> = {};
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      for (const k of ['heapUsed', 'heapTotal', 'external', 'arrayBuffers'] as const) peakOf[k] = Math.max(peakOf[k] ?? 0, m[k]);
      peakOf[`rss@${phase}`] = Math.max(peakOf[`rss@${phase}`] ?? 0, m.rss);
    }, 20);
    const phases: Record<string, number> = {};
    let phase = '';
    let mark = performance.now();
    const t0 = mark;
    const r = await runOpenfrmtExport(s, sandbox, {
      business,
      range: { from: range.f, to: range.t },
      actor: { accountId, keyId: null },
      opts: {
        onPhase: (p) => {
          const now = performance.now();
          if (phase) phases[phase] = Math.round(now - mark);
          phase = p;
          mark = now;
          pgCpu.step(p);
        },
        // BENCH_EXPORT_CHUNK: documents a read (a what-if; the product's is EXPORT_CHUNK).
        ...(process.env.BENCH_EXPORT_CHUNK ? { chunkSize: Number(process.env.BENCH_EXPORT_CHUNK) } : {}),
      },
    });
    const end = performance.now();
    clearInterval(sampler);
    const postgres = await pgCpu.stop();
    phases[phase] = Math.round(end - mark);
    console.log(
      JSON.stringify({
        ms: Math.round(end - t0),
        phases,
        cpu: { ...cpuMs(), postgres: postgres.total, postgresSteps: postgres.steps },
        memory: Object.fromEntries(Object.entries(peakOf).map(([k, v]) => [k, Math.round(v / 1048576)])),
        rssBefore,
        load: loadavg()
          .map((l) => l.toFixed(1))
          .join(' '),
        peakRss: vm('VmHWM'),
        documents: r.exportRun.verification?.documentsRead,
        records: r.exportRun.recordCounts?.total,
        zipBytes: r.file.size,
        ok: r.exportRun.verification?.ok,
        status: r.exportRun.status,
      }),
    );
  } finally {
    await sandbox.close();
  }
}

function exportInChild(url: string, business: BusinessRecord, accountId: string): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    // BENCH_EXPORT_NODE_ARGS: options for the child's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
    const nodeArgs = (process.env.BENCH_EXPORT_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', fileURLToPath(import.meta.url)], {
      env: { ...process.env, BENCH_EXPORT_CHILD: JSON.stringify({ url, business, accountId }) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`the export process ended with ${code}: ${out}`));
      resolve(JSON.parse(line));
    });
  });
}

const steps = (ms: Record<string, number>) =>
  Object.entries(ms)
    .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
    .join(', ');

function report(size: number, r: Record<string, any>): void {
  console.log(
    `PostgreSQL: OPENFRMT export of ${size.toLocaleString('en')} documents (${Number(r.records).toLocaleString('en')} records, ${Number(r.documents).toLocaleString('en')} read back): ` +
      `${(r.ms / 1000).toFixed(1)} s (${steps(r.phases)}); ` +
      `CPU ${(r.cpu.process / 1000).toFixed(1)} s, of which the main thread ${(r.cpu.mainThread / 1000).toFixed(1)} s; ` +
      `PostgreSQL's backends ${r.cpu.postgres === null ? 'not readable' : `${(r.cpu.postgres / 1000).toFixed(1)} s (${steps(r.cpu.postgresSteps)})`}; load average ${r.load}; ` +
      `process RSS before ${mb(r.rssBefore)}, peak ${mb(r.peakRss)} (peaks in MB ${JSON.stringify(r.memory)}); zip ${mb(r.zipBytes)}; verification ${r.ok ? 'ok' : 'FAILED'}`,
  );
}

async function main(): Promise<void> {
  // Loaded here, not at the top: the export's child loads only the export path.
  const [{ createServices }, { buildApp }, { createAccount }, { mintKey }, { serverDatabases }, { readBusiness, seedDocuments }] = await Promise.all([
    import('../src/services.ts'),
    import('../src/app.ts'),
    import('../src/accounts/accounts.ts'),
    import('../src/accounts/keys.ts'),
    import('./databases.ts'),
    import('./seed/documents.ts'),
  ]);
  const SIZE = Number(process.env.BENCH_EXPORT_SIZE ?? 1_000_000);
  const RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 1);
  const server = await serverDatabases({ live: 2, sandbox: 4 });
  if (!server) return;
  let keep = false;
  try {
    const { live, sandbox } = server;
    const s = createServices(config(), systemClock, createLogger('silent'), { live, sandbox });
    const app = await buildApp(s);
    let accountId: string;
    let bid: string;
    try {
      const account = await createAccount(live.db, new Date(), { name: 'bench', approvalStatus: 'approved' });
      accountId = account.id;
      const { secret: key } = await mintKey(live.db, new Date(), { accountId: account.id, mode: 'test' });
      const res = await app.inject({
        method: 'POST',
        url: '/v1/businesses',
        headers: { 'x-api-key': key },
        payload: { name: 'ספרים גדולים בע"מ', taxId: '516179157', dealerType: 'company' },
      });
      if (res.statusCode !== 201) throw new Error(`business: ${res.statusCode} ${res.body}`);
      bid = res.json().business.id;
    } finally {
      await app.close();
    }
    let lastPrint = 0;
    const seeded = await seedDocuments(sandbox, {
      businessId: bid,
      count: SIZE,
      onProgress: (done, total, ms) => {
        if (ms - lastPrint < 30_000) return;
        lastPrint = ms;
        console.log(`  seeding ${done.toLocaleString('en')} / ${total.toLocaleString('en')} (${Math.round((done * 1000) / ms)}/s)`);
      },
    });
    console.log(`seeded ${seeded.documents.toLocaleString('en')} documents in ${(seeded.ms / 1000).toFixed(0)} s (${seeded.perSecond}/s)`);
    // What autovacuum would have done by the time anyone exports: statistics for the export's plans.
    await sandbox.pool.query('VACUUM (ANALYZE) documents, journal_entries, journal_lines');
    const url = (sandbox.pool as unknown as { options: { connectionString: string } }).options.connectionString;
    for (let i = 0; i < RUNS; i++) {
      // One production per business and minute (spec §2.2): a further run waits for the next minute.
      if (i > 0) await new Promise((r) => setTimeout(r, 61_000));
      report(SIZE, await exportInChild(url, await readBusiness(sandbox, bid), accountId));
    }
    if (process.env.BENCH_EXPORT_KEEP === '1') {
      keep = true;
      console.log(`kept: BENCH_EXPORT_URL=${url} BENCH_EXPORT_BUSINESS=${bid} BENCH_EXPORT_ACCOUNT=${accountId} (drop its scratch databases when done)`);
    }
  } finally {
    if (!keep) await server.close();
    else await Promise.all([server.live.close(), server.sandbox.close()]);
  }
}

/** The kept books exported again (BENCH_EXPORT_URL …): the business read here, the export in a child. */
async function exportAgain(url: string, businessId: string, accountId: string): Promise<void> {
  const { readBusiness } = await import('./seed/documents.ts');
  const db = await openPool('sandbox', url, { poolSize: 1 });
  let business: BusinessRecord;
  try {
    business = await readBusiness(db, businessId);
  } finally {
    await db.close();
  }
  const r = await exportInChild(url, business, accountId);
  report(Number(r.documents), r);
}

if (process.env.BENCH_EXPORT_CHILD) {
  const { url, business, accountId } = JSON.parse(process.env.BENCH_EXPORT_CHILD) as { url: string; business: BusinessRecord; accountId: string };
  await exportOnly(url, business, accountId);
} else if (process.env.BENCH_EXPORT_URL) {
  await exportAgain(process.env.BENCH_EXPORT_URL, process.env.BENCH_EXPORT_BUSINESS!, process.env.BENCH_EXPORT_ACCOUNT!);
} else {
  await main();
}
