/**
 * Large books (issue 17, "flat at a million"): seeds BENCH_BOOK_SIZE (default 1,000,000) issued
 * documents into one business (bench/seed/documents.ts: the API's rows, audit chain included), then
 *  - lists documents over HTTP (`take=50`) with each filter, sequentially, and prints p50/p95/p99;
 *  - counts (`counts=1`), the same way;
 *  - exports the whole range to OPENFRMT in this process: wall time, RSS before and peak, zip size.
 * On embedded PostgreSQL (this process's own cluster) and on server PostgreSQL (scratch databases of
 * TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test; skipped when unreachable).
 * BENCH_ENGINES=embedded or =server runs one; BENCH_LIST_RUNS (default 200) requests per filter;
 * BENCH_EXPORT=0 skips the export. Flatness of issuing: before seeding and again with the books seeded, the load
 * generator of bench/issue.bench.ts (its own process) issues BENCH_ISSUE_DOCS (default 3,000; 0 skips) documents
 * (draft + issue, 32 in flight) in the same 32 new businesses of the same database (twice ~110 each: under the daily backstop), and the ratio of the two rates is printed. BENCH_SEEDED='{"live":URL,"sandbox":URL,"key":KEY,"business":ID}' measures books
 * seeded before (bench/seed/main.ts) on those two databases instead (server engine; nothing is seeded or dropped).
 */
import { loadConfig } from '../src/platform/config.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createLogger } from '../src/platform/logger.ts';
import { openPool, type Database } from '../src/platform/db/engine.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { mintKey } from '../src/accounts/keys.ts';
import { runOpenfrmtExport } from '../src/exports/run.ts';
import { embeddedDatabases, serverDatabases } from './databases.ts';
import { readBusiness, seedDocuments } from './seed/documents.ts';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ISSUE_DOCS = Number(process.env.BENCH_ISSUE_DOCS ?? 3000);
const LOAD = fileURLToPath(new URL('./issue/load.ts', import.meta.url));

/** One job of bench/issue/load.ts in its own process (what it prints last is the answer). */
function load(job: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', LOAD, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`load generator exited ${code}`))));
  });
}

/** Draft + issue over HTTP, 32 in flight, in 32 businesses (made on the first call): documents per second and p99. */
let issueBusinesses: string[] | null = null;
async function issueRate(base: string, key: string): Promise<{ perSecond: number; p99: number }> {
  issueBusinesses ??= (await load({ kind: 'setup', base, key, businesses: 32 })).businessIds as string[];
  const businessIds = issueBusinesses;
  await load({ kind: 'issue', base, key, businessIds, docs: Math.round(ISSUE_DOCS / 10), concurrency: 32, first: ISSUE_DOCS }); // warm-up
  const r = await load({ kind: 'issue', base, key, businessIds, docs: ISSUE_DOCS, concurrency: 32, first: 0 });
  return r.documents;
}

const SIZE = Number(process.env.BENCH_BOOK_SIZE ?? 1_000_000);
const RUNS = Number(process.env.BENCH_LIST_RUNS ?? 200);
const ENGINES = (process.env.BENCH_ENGINES ?? 'embedded,server').split(',');
const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const SEEDED = process.env.BENCH_SEEDED ? (JSON.parse(process.env.BENCH_SEEDED) as { live: string; sandbox: string; key: string; business: string }) : null;

/** What seedDocuments reports, read back from books seeded before. */
async function alreadySeeded(sandbox: Database, bid: string) {
  const r = await sandbox.pool.query(
    `SELECT count(*)::int AS n, min(document_date)::text AS first, max(document_date)::text AS last,
            (SELECT array_agg(id ORDER BY created_at, id) FROM parties WHERE business_id = $1) AS parties
       FROM documents WHERE business_id = $1`,
    [bid],
  );
  const row = r.rows[0];
  console.log(`  books seeded before: ${row.n.toLocaleString('en')} documents dated ${row.first}..${row.last}`);
  return {
    documents: row.n,
    auditRows: 2 * row.n,
    firstDay: row.first,
    lastDay: row.last,
    partyIds: (row.parties ?? []) as string[],
    ms: 0,
    perSecond: 0,
    phasesMs: {},
  };
}

async function benchEngine(name: string, live: Database, sandbox: Database) {
  const config = loadConfig({ PINKAS_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '10000000', DATA_DIR: '/nonexistent' });
  const s = createServices(config, systemClock, createLogger('silent'), { live, sandbox });
  const app = await buildApp(s);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  try {
    const reuse = SEEDED && name !== 'embedded PostgreSQL' ? SEEDED : null;
    const account = reuse ? null : await createAccount(live.db, new Date(), { name: 'bench', approvalStatus: 'approved' });
    const key = reuse ? reuse.key : (await mintKey(live.db, new Date(), { accountId: account!.id, mode: 'test' })).secret;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(base + path, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as any;
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const bid = reuse
      ? reuse.business
      : ((await call('POST', '/v1/businesses', { name: 'ספרים גדולים בע"מ', taxId: '516179157', dealerType: 'company' })).business.id as string);

    const emptyRate = ISSUE_DOCS && !reuse ? await issueRate(base, key) : null;
    if (emptyRate) console.log(`${name}: issue on empty books ${emptyRate.perSecond} docs/s, p99 ${emptyRate.p99} ms`);

    // Seed.
    let lastPrint = 0;
    const seeded = reuse
      ? await alreadySeeded(sandbox, bid)
      : await seedDocuments(sandbox, {
          businessId: bid,
          count: SIZE,
          onProgress: (done, total, ms) => {
            if (ms - lastPrint < 30_000) return;
            lastPrint = ms;
            console.log(`  ${name}: seeding ${done.toLocaleString('en')} / ${total.toLocaleString('en')} (${Math.round((done * 1000) / ms)}/s)`);
          },
        });
    console.log(
      `${name}: seeded ${seeded.documents.toLocaleString('en')} documents (${seeded.auditRows.toLocaleString('en')} audit rows) ` +
        `in ${(seeded.ms / 1000).toFixed(0)} s: ${seeded.perSecond}/s; phases ms ${JSON.stringify(seeded.phasesMs)}`,
    );
    // Books this size have been vacuumed by autovacuum long since: the visibility map lets the list's
    // index-only scans skip the rows.
    const v0 = performance.now();
    if (!reuse) await sandbox.pool.query('VACUUM (ANALYZE) documents');
    console.log(`${name}: VACUUM (ANALYZE) documents ${((performance.now() - v0) / 1000).toFixed(0)} s`);

    if (ISSUE_DOCS) {
      const full = await issueRate(base, key);
      console.log(
        `${name}: issue with ${seeded.documents.toLocaleString('en')} documents in the books ${full.perSecond} docs/s, p99 ${full.p99} ms` +
          (emptyRate ? ` (${((full.perSecond / emptyRate.perSecond) * 100).toFixed(0)}% of the empty books' rate)` : ''),
      );
    }

    // List.
    const party = seeded.partyIds[7];
    const firstMonth = seeded.firstDay.slice(0, 8);
    const lastMonth = seeded.lastDay.slice(0, 8);
    const docs = (await call('GET', `/v1/businesses/${bid}/documents?take=1&skip=${Math.floor(SIZE / 2)}`)).documents;
    const middle = docs[0]?.createdAt as string;
    const cases: [string, string][] = [
      ['no filter', ''],
      ['status=issued', 'status=issued'],
      ['status=draft (none)', 'status=draft'],
      ['docType=305', 'docType=305'],
      ['docType=330 (none)', 'docType=330'],
      ['from/to: last month', `from=${lastMonth}01&to=${lastMonth}28`],
      ['from/to: first month', `from=${firstMonth}01&to=${firstMonth}28`],
      ['from/to + docType + status', `from=${lastMonth}01&to=${lastMonth}28&docType=320&status=issued`],
      ['partyId', `partyId=${party}`],
      ['externalRefPrefix=pos- (1/3)', 'externalRefPrefix=pos-'],
      ['externalRefPrefix=pos-0000012 (few)', 'externalRefPrefix=pos-0000012'],
      ['q=מטבח (common)', `q=${encodeURIComponent('מטבח')}`],
      ['q=party name (rare)', `q=${encodeURIComponent('כהן 17')}`],
      ['q=no match', `q=${encodeURIComponent('זזזקקק')}`],
      ['q=12345 (number)', 'q=12345'],
      ['q=כה (2 chars)', `q=${encodeURIComponent('כה')}`],
      ['q + docType', `q=${encodeURIComponent('מטבח')}&docType=320`],
      ['before= (middle of the books)', `before=${encodeURIComponent(middle)}`],
      ['counts=1', 'counts=1'],
    ];
    for (const [label, qs] of cases) {
      const path = `/v1/businesses/${bid}/documents?take=50${qs ? `&${qs}` : ''}`;
      let n = 0;
      for (let i = 0; i < 10; i++) n = (await call('GET', path)).documents.length;
      const lat: number[] = [];
      const runs = label === 'counts=1' ? Math.min(RUNS, 50) : RUNS;
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        await call('GET', path);
        lat.push(performance.now() - t0);
      }
      lat.sort((a, b) => a - b);
      console.log(
        `${name}: list ${label.padEnd(36)} p50 ${pct(lat, 50).toFixed(1).padStart(6)} ms  p95 ${pct(lat, 95).toFixed(1).padStart(6)} ms  p99 ${pct(lat, 99).toFixed(1).padStart(6)} ms  (${n} rows, ${runs} requests)`,
      );
    }

    // Export of the whole range.
    if (process.env.BENCH_EXPORT !== '0' && account) {
      const business = await readBusiness(sandbox, bid);
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
      const t0 = performance.now();
      const r = await runOpenfrmtExport(s, sandbox, {
        business,
        range: { from: seeded.firstDay, to: seeded.lastDay },
        actor: { accountId: account.id, keyId: null },
      });
      const ms = performance.now() - t0;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      console.log(
        `${name}: OPENFRMT export of ${SIZE.toLocaleString('en')} documents (${r.exportRun.recordCounts!.total.toLocaleString('en')} records): ` +
          `${(ms / 1000).toFixed(1)} s; RSS before ${mb(before)}, peak ${mb(peak)} (+${mb(peak - before)}); zip ${mb(r.file.size)}; ` +
          `verification ${r.exportRun.verification!.ok ? 'ok' : 'FAILED'}`,
      );
    }
  } finally {
    await app.close();
  }
}

const POOLS = { live: 4, sandbox: 8 };
if (ENGINES.includes('embedded')) {
  const { live, sandbox, close } = await embeddedDatabases(POOLS);
  try {
    await benchEngine('embedded PostgreSQL', live, sandbox);
  } finally {
    await close();
  }
}
if (ENGINES.includes('server')) {
  const server = SEEDED
    ? {
        live: await openPool('live', SEEDED.live, { poolSize: POOLS.live, kind: 'server' }),
        sandbox: await openPool('sandbox', SEEDED.sandbox, { poolSize: POOLS.sandbox, kind: 'server' }),
        async close() {
          await Promise.all([this.live.close(), this.sandbox.close()]);
        },
      }
    : await serverDatabases(POOLS);
  if (server) {
    try {
      await benchEngine('PostgreSQL', server.live, server.sandbox);
    } finally {
      await server.close();
    }
  }
}
