/**
 * The OpenAPI document the service serves at /v1/openapi.json, built in this process without a
 * database: the routes' schemas make the document, so pools that never connect are enough.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import { buildApp } from '../../../src/app.ts';
import { ManualClock } from '../../../src/platform/clock.ts';
import { loadConfig } from '../../../src/platform/config.ts';
import type { Database, Mode } from '../../../src/platform/db/engine.ts';
import { createLogger } from '../../../src/platform/logger.ts';
import { createServices } from '../../../src/services.ts';

function unconnectedDatabase(mode: Mode): Database {
  // Port 1 answers nothing: a query by mistake fails loudly instead of touching a real database.
  const pool = new pg.Pool({ connectionString: 'postgres://unused@127.0.0.1:1/unused', max: 1 });
  pool.on('error', () => {});
  return { mode, kind: 'server', db: drizzle(pool), pool, close: () => pool.end() };
}

export async function serviceOpenapiDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pinkas-sdk-doc-'));
  const config = loadConfig({ PINKAS_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir });
  const databases = { live: unconnectedDatabase('live'), sandbox: unconnectedDatabase('sandbox') };
  const s = createServices(config, new ManualClock(), createLogger('silent'), databases);
  const app = await buildApp(s);
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await Promise.all([databases.live.close(), databases.sandbox.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
