import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';

/** Which database answered: the API's `X-Service-Mode`. Test keys use the sandbox. */
export type Mode = 'live' | 'sandbox';

export type Db = PgDatabase<PgQueryResultHKT, Record<string, never>>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything a query can run on: the database or an open transaction. */
export type Executor = Db | Tx;

export type RawHandle = { kind: 'pglite'; client: PGlite } | { kind: 'postgres'; pool: pg.Pool };

export interface Database {
  mode: Mode;
  engine: 'pglite' | 'postgres';
  db: Db;
  raw: RawHandle;
  close(): Promise<void>;
}

// int8 and numeric arrive as JS numbers on both engines (amounts are agorot, far below 2^53).
const toNumber = (v: string) => Number(v);
pg.types.setTypeParser(20, toNumber);
pg.types.setTypeParser(1700, toNumber);
const pgliteParsers = { 20: toNumber, 1700: toNumber };

export interface EmbeddedOptions {
  /** Folder of the data; omit for an in-memory database (tests). */
  dataDir?: string;
  /** A `dumpDataDir()` tarball to start from (tests: a migrated template). */
  loadDataDir?: Blob;
}

export async function openEmbedded(mode: Mode, opts: EmbeddedOptions = {}): Promise<Database> {
  const client = new PGlite({
    dataDir: opts.dataDir,
    loadDataDir: opts.loadDataDir,
    parsers: pgliteParsers,
  });
  await client.waitReady;
  const db = drizzlePglite(client) as unknown as Db;
  return {
    mode,
    engine: 'pglite',
    db,
    raw: { kind: 'pglite', client },
    close: async () => {
      if (!client.closed) await client.close();
    },
  };
}

export async function openServer(mode: Mode, url: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => {});
  const probe = await pool.connect();
  probe.release();
  const db = drizzlePostgres(pool) as unknown as Db;
  return {
    mode,
    engine: 'postgres',
    db,
    raw: { kind: 'postgres', pool },
    close: async () => {
      await pool.end();
    },
  };
}
