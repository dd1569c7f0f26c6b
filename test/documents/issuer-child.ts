/**
 * A separate API process for the concurrency tests: it builds the real app on the shared
 * PostgreSQL databases and issues the given drafts through HTTP (inject), `PARALLEL` at a time.
 * Env: LIVE_URL, SANDBOX_URL, API_KEY, BUSINESS_ID, DOC_IDS (comma separated), PARALLEL.
 * Prints one JSON line: [{id, status, docNumber}] and exits.
 */
import { loadConfig } from '../../src/platform/config.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { openPool } from '../../src/platform/db/engine.ts';
import { createServices } from '../../src/services.ts';
import { buildApp } from '../../src/app.ts';

const env = process.env;
const liveUrl = env.LIVE_URL!;
const sandboxUrl = env.SANDBOX_URL!;
const config = loadConfig({
  PINKAS_ENV: 'test',
  LOG_LEVEL: env.CHILD_LOG_LEVEL ?? 'silent',
  RATE_LIMIT_PER_MINUTE: '1000000',
  DATA_DIR: '/nonexistent',
  DATABASE_URL: liveUrl,
  SANDBOX_DATABASE_URL: sandboxUrl,
});
const live = await openPool('live', liveUrl, { poolSize: 4 });
const sandbox = await openPool('sandbox', sandboxUrl, { poolSize: 8 });
const s = createServices(config, systemClock, createLogger(env.CHILD_LOG_LEVEL ?? 'silent'), { live, sandbox });
const app = await buildApp(s);
await app.ready();

const ids = (env.DOC_IDS ?? '').split(',').filter(Boolean);
const parallel = Number(env.PARALLEL ?? '4');
const results: { id: string; status: number; docNumber: number | null; reason?: string }[] = [];
let next = 0;
async function worker() {
  while (next < ids.length) {
    const id = ids[next++];
    const res = await app.inject({
      method: 'POST',
      url: `/v1/businesses/${env.BUSINESS_ID}/documents/${id}/issue`,
      headers: { 'x-api-key': env.API_KEY! },
    });
    const body = res.json();
    results.push({ id, status: res.statusCode, docNumber: body.document?.docNumber ?? null, reason: body.reason });
  }
}
process.stderr.write('ready\n');
await Promise.all(Array.from({ length: parallel }, worker));
process.stdout.write(JSON.stringify(results) + '\n');
await app.close();
await live.close();
await sandbox.close();
