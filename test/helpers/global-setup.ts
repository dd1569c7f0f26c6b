import { appendFileSync, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPool } from '../../src/platform/db/engine.ts';
import { EmbeddedCluster } from '../../src/platform/db/embedded-cluster.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { buildEntryBundle } from './entry-bundle.ts';
import { openRunDir } from './run-dir.ts';
import { testDatabasePrefix } from './database-names.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An administrative connection string of the PostgreSQL under test (databases are created through it). */
    adminUrl: string;
    /** The migrated database that each test file's databases are cloned from. */
    template: string;
  }
}

/**
 * One PostgreSQL for the whole run: TEST_DATABASE_URL when given (CI gives the machine's server),
 * otherwise an embedded cluster started here once, so `npm test` needs only Node. One migrated
 * template; each test file clones its databases from it (CREATE DATABASE … TEMPLATE). Everything the run
 * puts on disk, and every process it starts, lives under one folder that goes with it (run-dir.ts).
 */
export default async function setup(project: TestProject) {
  const run = openRunDir();
  await buildEntryBundle(run.dir);
  let adminUrl = process.env.TEST_DATABASE_URL;
  let cluster: EmbeddedCluster | null = null;
  let dir: string | null = null;
  if (!adminUrl) {
    // Readable by the unprivileged user PostgreSQL runs as under root.
    dir = mkdtempSync(path.join(tmpdir(), 'pinkas-test-pg-'));
    chmodSync(dir, 0o755);
    cluster = new EmbeddedCluster(dir);
    await cluster.initialise();
    // A cluster that lives as long as the run keeps nothing worth a flush to disk: every commit and every cloned
    // database would otherwise wait on fsync (CREATE DATABASE ~1 s each on this machine's disk, ~400 a run).
    appendFileSync(path.join(cluster.pgdata, 'postgresql.conf'), 'fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n');
    const port = await cluster.start();
    adminUrl = cluster.url('postgres', port);
  }
  const template = `pinkas_tpl_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${template}`;
  const db = await openPool('live', u.toString(), { poolSize: 1 });
  await migrate(db);
  await db.close();
  project.provide('adminUrl', adminUrl);
  project.provide('template', template);

  return async () => {
    const a = new pg.Client({ connectionString: adminUrl });
    await a.connect();
    await a.query(`DROP DATABASE IF EXISTS ${template}`);
    // The run's databases a test left behind (freshDatabase names them after the template), so that runs on a
    // shared PostgreSQL do not pile them up.
    const left = await a.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${testDatabasePrefix(template)}%`]);
    for (const { datname } of left.rows) await a.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await a.end();
    if (cluster) await cluster.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    run.cleanUp();
  };
}
