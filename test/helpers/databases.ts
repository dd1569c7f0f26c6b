import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { openEmbedded, openServer, type Database, type Mode } from '../../src/platform/db/engine.ts';

export type TestEngine = 'pglite' | 'postgres';
export const testEngine = (): TestEngine => (process.env.PINKAS_TEST_ENGINE === 'postgres' ? 'postgres' : 'pglite');

let counter = 0;

/** A fresh, migrated database of the engine under test; `drop()` removes it. */
export async function freshDatabase(mode: Mode, poolSize = 10): Promise<{ database: Database; url: string | null; drop(): Promise<void> }> {
  if (testEngine() === 'pglite') {
    const tar = readFileSync(inject('pgliteTemplate'));
    const database = await openEmbedded(mode, { loadDataDir: new Blob([tar]) });
    return { database, url: null, drop: () => database.close() };
  }
  const base = process.env.TEST_DATABASE_URL!;
  const name = `pinkas_t_${process.pid}_${Date.now()}_${counter++}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('postgresTemplate')}`);
      break;
    } catch (err) {
      // Two files copying the template at the same instant: wait and retry.
      if (attempt > 20) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  const url = u.toString();
  const database = await openServer(mode, url, poolSize);
  return {
    database,
    url,
    drop: async () => {
      await database.close();
      const a = new pg.Client({ connectionString: base });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
