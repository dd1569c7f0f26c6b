import { AsyncLocalStorage } from 'node:async_hooks';
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

/**
 * PGlite is one session: while a transaction is open, any other query on the same database waits
 * for it. Code inside a transaction that reads through the plain `db` (e.g. the control plane of the
 * live database while a live write is open) would wait for itself forever. So inside the async
 * context of a transaction, the plain `db` joins that transaction; other requests still queue as usual.
 */
function joinOpenTransaction(db: Db): Db {
  const open = new AsyncLocalStorage<Tx>();
  return new Proxy(db, {
    get(target, prop, receiver) {
      const tx = open.getStore();
      if (prop === 'transaction') {
        return (cb: (tx: Tx) => Promise<unknown>, config?: unknown) => {
          if (tx) return (tx.transaction as (c: typeof cb) => Promise<unknown>)(cb);
          return (target.transaction as (c: typeof cb, cfg?: unknown) => Promise<unknown>)((t) => open.run(t, () => cb(t)), config);
        };
      }
      if (tx && typeof prop === 'string' && prop in tx) {
        const v = Reflect.get(tx, prop, tx);
        return typeof v === 'function' ? v.bind(tx) : v;
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

export async function openEmbedded(mode: Mode, opts: EmbeddedOptions = {}): Promise<Database> {
  const client = new PGlite({
    dataDir: opts.dataDir,
    loadDataDir: opts.loadDataDir,
    parsers: pgliteParsers,
  });
  await client.waitReady;
  const db = joinOpenTransaction(drizzlePglite(client) as unknown as Db);
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
