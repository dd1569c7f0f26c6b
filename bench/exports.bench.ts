/**
 * OPENFRMT export figures: 10k and 100k issued documents (seeded in bulk), exported and verified
 * end to end (stream → zip → read back → DB totals → store). Prints the time, the peak RSS during
 * the run above the RSS before it, and the longest pause between chunks (how long one chunk holds
 * the database). Runs on embedded PostgreSQL (this process's own cluster); BENCH_DATABASE_URL=postgres://…
 * runs it on a server PostgreSQL too, in scratch databases created through that URL and dropped
 * afterwards.
 */
import { loadConfig } from '../src/platform/config.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createLogger } from '../src/platform/logger.ts';
import type { Database } from '../src/platform/db/engine.ts';
import { createServices } from '../src/services.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { sql } from 'drizzle-orm';
import type { Executor } from '../src/platform/db/engine.ts';
import { queryOne } from '../src/platform/db/sql.ts';
import { newId } from '../src/platform/ids.ts';
import { toBusinessRecord } from '../src/businesses/records.ts';
import { runOpenfrmtExport } from '../src/exports/run.ts';
import { seedIssuedInvoices } from '../test/exports/seed.ts';
import { embeddedDatabases, serverDatabases } from './databases.ts';

const config = loadConfig({ PINKAS_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: '/nonexistent' });
async function createBusinessRow(ex: Executor, accountId: string, name: string) {
  const now = new Date().toISOString();
  const row = await queryOne<Record<string, unknown>>(
    ex,
    sql`INSERT INTO businesses(id, account_id, created_by_key_id, name, tax_id, dealer_type, created_at, updated_at)
        VALUES (${newId('biz')}, ${accountId}, 'key_bench', ${name}, '516179157', 'company', ${now}, ${now}) RETURNING *`,
  );
  return toBusinessRecord(row!);
}
const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;

async function bench(label: string, sandbox: Database, live: Database, sizes: number[]) {
  const s = createServices(config, systemClock, createLogger('silent'), { live, sandbox });
  const account = await createAccount(live.db, new Date(), { name: 'bench', approvalStatus: 'approved' });
  for (const n of sizes) {
    const business = await createBusinessRow(sandbox.db, account.id, `bench ${n}`);
    const t0 = performance.now();
    await seedIssuedInvoices(sandbox.db, {
      businessId: business.id,
      count: n,
      firstNumber: 1,
      date: '2026-02-15',
      issuedAt: '2026-02-15T10:00:00.000Z',
      skus: 200,
    });
    const seedMs = performance.now() - t0;
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    let last = performance.now();
    let longestGap = 0;
    const start = performance.now();
    const result = await runOpenfrmtExport(s, sandbox, {
      business,
      range: { from: '2026-02-01', to: '2026-02-28' },
      actor: { accountId: account.id, keyId: null },
      opts: {
        afterChunk: async () => {
          const now = performance.now();
          longestGap = Math.max(longestGap, now - last);
          last = now;
        },
      },
    });
    const ms = performance.now() - start;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    const v = result.exportRun.verification!;
    console.log(
      `${label}: ${n.toLocaleString('en')} documents (${result.exportRun.recordCounts!.total.toLocaleString('en')} records) exported + verified in ${(ms / 1000).toFixed(1)} s` +
        ` (${Math.round((n * 1000) / ms)} docs/s); RSS before ${mb(before)}, peak ${mb(peak)} (+${mb(peak - before)}); zip ${(result.file.size / 1e6).toFixed(1)} MB;` +
        ` longest chunk ${longestGap.toFixed(0)} ms; verification ${v.ok ? 'ok' : 'FAILED'}; seeding took ${(seedMs / 1000).toFixed(1)} s`,
    );
    if (!v.ok) process.exitCode = 1;
  }
}

{
  const { live, sandbox, close } = await embeddedDatabases();
  try {
    await bench('embedded PostgreSQL', sandbox, live, [10_000, 100_000]);
  } finally {
    await close();
  }
}
if (process.env.BENCH_DATABASE_URL) {
  const server = await serverDatabases(undefined, process.env.BENCH_DATABASE_URL);
  if (server) {
    try {
      await bench('PostgreSQL', server.sandbox, server.live, [10_000, 100_000]);
    } finally {
      await server.close();
    }
  }
}
