/**
 * Console figures: the argon2id cost per password check (what bounds sign-in throughput and what an
 * attacker pays per guess), and signed-in page renders through the whole HTTP stack (embedded PostgreSQL).
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/platform/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { mintKey } from '../src/accounts/keys.ts';
import { hashPassword, passwordMatches } from '../src/console/sign-in.ts';
import { createPendingSession, completeSecondFactor } from '../src/console/sessions.ts';
import { embeddedDatabases } from './databases.ts';

const rss = () => `${Math.round(process.memoryUsage().rss / 1_048_576)} MB`;

const hashed = await hashPassword('correct horse battery staple');
let t = performance.now();
const N = 20;
for (let i = 0; i < N; i++) await passwordMatches(hashed, 'correct horse battery staple');
const verifyMs = (performance.now() - t) / N;
t = performance.now();
await Promise.all(Array.from({ length: N }, () => passwordMatches(hashed, 'wrong guess')));
const parallelPerSec = N / ((performance.now() - t) / 1000);
console.log(`argon2id (19 MiB, t=2, p=1) verify: ${verifyMs.toFixed(1)} ms each sequentially; ${parallelPerSec.toFixed(0)} checks/s with ${N} in parallel`);

const { live, sandbox, close } = await embeddedDatabases();
try {
  const config = loadConfig({ PINKAS_ENV: 'development', LOG_LEVEL: 'silent', DATA_DIR: '/nonexistent' });
  const s = createServices(config, systemClock, createLogger('silent'), { live, sandbox });
  const app = await buildApp(s);
  try {
    await app.ready();
    const now = new Date();
    const account = await createAccount(live.db, now, { name: 'Bench', approvalStatus: 'approved', email: 'b@example.com', phone: '+972500000000' });
    for (let i = 0; i < 5; i++) await mintKey(live.db, now, { accountId: account.id, mode: 'test', label: `k${i}` });
    const { session } = await createPendingSession(live.db, now, { accountId: account.id, ip: '127.0.0.1', userAgent: 'bench' });
    const token = await completeSecondFactor(live.db, session.id, now);
    const headers = { cookie: `pinkas_session=${token}` };

    for (const url of ['/console/keys', '/console/usage']) {
      for (let i = 0; i < 20; i++) await app.inject({ url, headers });
      const M = 300;
      t = performance.now();
      for (let i = 0; i < M; i++) {
        const r = await app.inject({ url, headers });
        if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode}`);
      }
      const perSec = M / ((performance.now() - t) / 1000);
      console.log(`GET ${url} (signed in, 5 keys): ${perSec.toFixed(0)} pages/s sequential via inject`);
    }
    console.log(`peak-ish RSS ${rss()}`);
  } finally {
    await app.close();
  }
} finally {
  await close();
}
