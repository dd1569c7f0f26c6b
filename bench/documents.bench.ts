/**
 * Issue throughput over HTTP: a real listening server on 127.0.0.1 (rate limit lifted), drafts
 * prepared first, then POST …/issue with CONCURRENCY requests in flight. Prints documents per
 * second and p50/p99 latency on embedded PostgreSQL (the cluster pinkas manages itself, in-memory
 * rate limiter) and on server PostgreSQL (scratch databases of TEST_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test; skipped when unreachable), and, as the floor, a bare
 * transaction loop on the same database (counter upsert + one insert). Both engines get the same
 * pools: 4 connections for live, CONCURRENCY for sandbox.
 */
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/platform/config.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createLogger } from '../src/platform/logger.ts';
import type { Database } from '../src/platform/db/engine.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { mintKey } from '../src/accounts/keys.ts';
import { embeddedDatabases, serverDatabases } from './databases.ts';

const BUSINESSES = 4;
const PER_BUSINESS = 200; // under the daily backstop of 300 per business
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function runPool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++];
        const t0 = performance.now();
        await fn(item);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

function report(label: string, n: number, ms: number, lat: number[]) {
  console.log(
    `${label.padEnd(44)} ${((n * 1000) / ms).toFixed(0).padStart(6)}/s   p50 ${pct(lat, 50).toFixed(1)} ms   p99 ${pct(lat, 99).toFixed(1)} ms   (${n} in ${ms.toFixed(0)} ms, concurrency ${CONCURRENCY})`,
  );
}

async function benchEngine(name: string, live: Database, sandbox: Database) {
  const config = loadConfig({ PINKAS_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '10000000', DATA_DIR: '/nonexistent' });
  const s = createServices(config, systemClock, createLogger('silent'), { live, sandbox });
  const app = await buildApp(s);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const account = await createAccount(live.db, new Date(), { name: 'bench', approvalStatus: 'approved' });
  const { secret: key } = await mintKey(live.db, new Date(), { accountId: account.id, mode: 'test' });
  const call = async (path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const work: { bid: string; id: string }[] = [];
  for (let b = 0; b < BUSINESSES; b++) {
    const bid = (await call('/v1/businesses', { name: `bench ${b}`, taxId: '516179157', dealerType: 'company' })).business.id;
    for (let i = 0; i < PER_BUSINESS; i++) {
      const d = await call(`/v1/businesses/${bid}/documents`, {
        docType: 320,
        party: { name: `לקוח ${i}` },
        lines: [
          { description: 'שירות', quantity: 1, unitPriceExVat: 10_000 + i },
          { description: 'חלקים', quantity: 2.5, unitPriceExVat: 3_333 },
        ],
        payments: [{ method: 'card', amount: Math.round((10_000 + i + 8_333) * 1.18) }],
      });
      work.push({ bid, id: d.document.id });
    }
  }
  // Interleave businesses so concurrent requests hit several series at once, as real traffic would.
  work.sort((x, y) => (x.id < y.id ? -1 : 1));
  const t0 = performance.now();
  const lat = await runPool(work, CONCURRENCY, async (w) => {
    const r = await call(`/v1/businesses/${w.bid}/documents/${w.id}/issue`);
    if (!r.document.docNumber) throw new Error('no number');
  });
  report(`${name}: issue over HTTP`, work.length, performance.now() - t0, lat);
  await app.close();

  // The floor: the same database, a bare transaction with the counter row upsert and one insert.
  await sandbox.db.execute(sql`CREATE TABLE IF NOT EXISTS bench_floor (id text PRIMARY KEY, n bigint NOT NULL, body jsonb NOT NULL)`);
  const bids = [...new Set(work.map((w) => w.bid))];
  const items = Array.from({ length: work.length }, (_, i) => ({ bid: bids[i % bids.length], i }));
  const f0 = performance.now();
  const flat = await runPool(items, CONCURRENCY, async ({ bid, i }) => {
    await sandbox.db.transaction(async (tx) => {
      const r = (await tx.execute(
        sql`INSERT INTO document_counters(business_id, doc_type, start_number, last_number) VALUES (${bid}, 330, 1, 1)
            ON CONFLICT (business_id, doc_type) DO UPDATE SET last_number = coalesce(document_counters.last_number, 0) + 1 RETURNING last_number`,
      )) as unknown as { rows: { last_number: number }[] };
      await tx.execute(sql`INSERT INTO bench_floor(id, n, body) VALUES (${`f${i}`}, ${r.rows[0].last_number}, ${JSON.stringify({ i })}::jsonb)`);
    });
  });
  report(`${name}: floor (bare counter+insert transaction)`, items.length, performance.now() - f0, flat);
}

const POOLS = { live: 4, sandbox: CONCURRENCY };

// Embedded PostgreSQL: this process's own cluster, stopped at the end.
{
  const { live, sandbox, close } = await embeddedDatabases(POOLS);
  try {
    await benchEngine('embedded PostgreSQL', live, sandbox);
  } finally {
    await close();
  }
}

// Server PostgreSQL: scratch databases on the server, dropped afterwards.
{
  const server = await serverDatabases(POOLS);
  if (server) {
    try {
      await benchEngine('PostgreSQL', server.live, server.sandbox);
    } finally {
      await server.close();
    }
  }
}
