import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openEmbedded, openServer } from '../../src/platform/db/engine.ts';
import { migrate } from '../../src/platform/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string;
  }
}

/**
 * Migrates one template per engine, once per run: each test file then starts from a copy
 * (PGlite: loadDataDir of a dump; PostgreSQL: CREATE DATABASE … TEMPLATE), so files never share state.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinkas-test-'));
  const lite = await openEmbedded('live');
  await migrate(lite);
  if (lite.raw.kind !== 'pglite') throw new Error('unreachable');
  const dump = await lite.raw.client.dumpDataDir('none');
  const file = path.join(dir, 'template.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await lite.close();
  project.provide('pgliteTemplate', file);

  const url = process.env.TEST_DATABASE_URL;
  let template = '';
  if (url) {
    template = `pinkas_tpl_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${template}`);
    await admin.end();
    const u = new URL(url);
    u.pathname = `/${template}`;
    const db = await openServer('live', u.toString(), 1);
    await migrate(db);
    await db.close();
  }
  project.provide('postgresTemplate', template);

  return async () => {
    rmSync(dir, { recursive: true, force: true });
    if (url && template) {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${template}`);
      await admin.end();
    }
  };
}
