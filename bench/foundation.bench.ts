/**
 * Foundation figures: the cost of the rate-limit check (in memory on the embedded engine, one SQL
 * function call on PostgreSQL) and authenticated GET throughput through the whole HTTP stack.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { request } from 'undici';
import { MemoryRateLimiter, PostgresRateLimiter } from '../src/platform/rate-limit.ts';
import { openEmbedded, openServer, type Database } from '../src/platform/db/engine.ts';
import { migrate } from '../src/platform/db/migrate.ts';
import { loadConfig } from '../src/platform/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { mintKey } from '../src/accounts/keys.ts';

const PG = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function scratchPostgres(): Promise<{ live: Database; sandbox: Database; drop(): Promise<void> } | null> {
  const admin = new pg.Client({ connectionString: PG });
  try {
    await admin.connect();
  } catch {
    console.log('PostgreSQL unreachable: skipping its figures');
    return null;
  }
  const names = [`pinkas_bench_l_${process.pid}`, `pinkas_bench_s_${process.pid}`];
  for (const n of names) await admin.query(`CREATE DATABASE ${n}`);
  const url = (n: string) => Object.assign(new URL(PG), { pathname: `/${n}` }).toString();
  const live = await openServer('live', url(names[0]));
  const sandbox = await openServer('sandbox', url(names[1]));
  await migrate(live);
  await migrate(sandbox);
  return {
    live,
    sandbox,
    drop: async () => {
      await live.close();
      await sandbox.close();
      for (const n of names) await admin.query(`DROP DATABASE ${n}`);
      await admin.end();
    },
  };
}

async function limiterCost(name: string, hit: (i: number) => Promise<unknown>, n: number) {
  const t = performance.now();
  for (let i = 0; i < n; i++) await hit(i);
  const us = ((performance.now() - t) * 1000) / n;
  console.log(`rate-limit check, ${name}: ${us.toFixed(1)} µs per request (${n} sequential checks)`);
}

async function httpThroughput(label: string, live: Database, sandbox: Database) {
  const config = loadConfig({ PINKAS_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '10000000', PORT: '0' });
  const s = createServices(config, systemClock, createLogger('silent'), { live, sandbox });
  const account = await createAccount(live.db, new Date(), { name: 'bench', approvalStatus: 'approved' });
  const { secret } = await mintKey(live.db, new Date(), { accountId: account.id, mode: 'test' });
  const app = await buildApp(s);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const total = 3000;
  const concurrency = 16;
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const t = performance.now();
        const r = await request(`http://127.0.0.1:${port}/v1/keys`, { headers: { 'x-api-key': secret } });
        await r.body.dump();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const p = (q: number) => latencies[Math.floor(q * (latencies.length - 1))].toFixed(1);
  console.log(`GET /v1/keys on ${label}: ${(total / secs).toFixed(0)} req/s, p50 ${p(0.5)} ms, p99 ${p(0.99)} ms (${concurrency} concurrent)`);
  await app.close();
}

const memory = new MemoryRateLimiter(60);
await limiterCost('in memory (embedded engine), limit 60', (i) => memory.hit('k', i * 1000), 20_000);
const lite = { live: await openEmbedded('live'), sandbox: await openEmbedded('sandbox') };
await migrate(lite.live);
await migrate(lite.sandbox);
await httpThroughput('PGlite (in-memory limiter)', lite.live, lite.sandbox);
await lite.live.close();
await lite.sandbox.close();

const server = await scratchPostgres();
if (server) {
  const limiter = new PostgresRateLimiter(server.live, 60);
  await limiterCost('PostgreSQL function, limit 60', (i) => limiter.hit('k', i * 1000), 2_000);
  await httpThroughput('PostgreSQL (limiter in the database)', server.live, server.sandbox);
  await server.drop();
}
process.exit(0);
