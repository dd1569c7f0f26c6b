import pg from 'pg';
import { inject } from 'vitest';
import { openPool, type Database, type Mode } from '../../src/platform/db/engine.ts';
import { testDatabasePrefix } from './database-names.ts';

let counter = 0;

/** The administrative connection string of the PostgreSQL under test. */
export const adminUrl = (): string => inject('adminUrl');

/** A connection string to another database of the PostgreSQL under test. */
export function databaseUrl(name: string): string {
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh, migrated database cloned from the run's template; `drop()` removes it (else the run's end does). */
export async function freshDatabase(
  mode: Mode,
  poolSize = 10,
  kind: Database['kind'] = 'embedded',
): Promise<{ database: Database; url: string; drop(): Promise<void> }> {
  const name = `${testDatabasePrefix(inject('template'))}${process.pid}_${Date.now()}_${counter++}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('template')}`);
      break;
    } catch (err) {
      // Two files copying the template at the same instant ("source database is being accessed"): retry.
      if (attempt > 50) throw err;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 150));
    }
  }
  await admin.end();
  const url = databaseUrl(name);
  const database = await openPool(mode, url, { poolSize, kind });
  return {
    database,
    url,
    drop: async () => {
      await database.close();
      const a = new pg.Client({ connectionString: adminUrl() });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
