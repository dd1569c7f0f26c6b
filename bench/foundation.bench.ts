/**
 * Foundation figures: the cost of the rate-limit check (in memory on the embedded engine, one SQL
 * function call on PostgreSQL) and authenticated GET throughput through the whole HTTP stack.
 */
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { MemoryRateLimiter, PostgresRateLimiter } from '../src/platform/rate-limit.ts';
import type { Database } from '../src/platform/db/engine.ts';
import { loadConfig } from '../src/platform/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { mintKey } from '../src/accounts/keys.ts';
import { startInvalidation, stopInvalidation } from '../src/platform/db/invalidation.ts';
import { embeddedDatabases, serverDatabases } from './databases.ts';

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
  // As a serving process does (runtime/roles.ts startWeb): the caches answer from memory once listening.
  await startInvalidation(s.invalidation);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const created = await request(`http://127.0.0.1:${port}/v1/businesses`, {
    method: 'POST',
    headers: { 'x-api-key': secret, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', taxId: '516179157', dealerType: 'company' }),
  });
  const bid = ((await created.body.json()) as { business: { id: string } }).business.id;
  for (const path of ['/v1/keys', `/v1/businesses/${bid}`]) await getThroughput(`GET ${path.replace(bid, '{bid}')} on ${label}`, port, path, secret);
  await stopInvalidation(s.invalidation);
  await app.close();
}

/** Authenticated GETs through the whole HTTP stack, 16 in flight. */
async function getThroughput(label: string, port: number, path: string, secret: string) {
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
        const r = await request(`http://127.0.0.1:${port}${path}`, { headers: { 'x-api-key': secret } });
        await r.body.dump();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const p = (q: number) => latencies[Math.floor(q * (latencies.length - 1))].toFixed(1);
  console.log(`${label}: ${(total / secs).toFixed(0)} req/s, p50 ${p(0.5)} ms, p99 ${p(0.99)} ms (${concurrency} concurrent)`);
}

const memory = new MemoryRateLimiter(60);
await limiterCost('in memory (embedded engine), limit 60', (i) => memory.hit('k', i * 1000), 20_000);
const embedded = await embeddedDatabases();
try {
  await httpThroughput('embedded PostgreSQL (in-memory limiter)', embedded.live, embedded.sandbox);
} finally {
  await embedded.close();
}

const server = await serverDatabases();
if (server) {
  try {
    const limiter = new PostgresRateLimiter(server.live, 60);
    await limiterCost('PostgreSQL function, limit 60', (i) => limiter.hit('k', i * 1000), 2_000);
    await httpThroughput('PostgreSQL (limiter in the database)', server.live, server.sandbox);
  } finally {
    await server.close();
  }
}
process.exit(0);
