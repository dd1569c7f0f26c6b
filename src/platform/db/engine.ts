import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { dbRoundTripCounter } from '../metrics.ts';
import type { Mode } from './mode.ts';

export type { Mode } from './mode.ts';

export type Db = PgDatabase<PgQueryResultHKT, Record<string, never>>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything a query can run on: the database or an open transaction. */
export type Executor = Db | Tx;

export interface Database {
  mode: Mode;
  /**
   * `embedded`: the cluster under DATA_DIR, used by this one server process (the data-folder lock
   * guarantees it). `server`: a PostgreSQL that several processes may share.
   */
  kind: 'embedded' | 'server';
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

// int8 and numeric arrive as JS numbers (amounts are agorot, far below 2^53).
const toNumber = (v: string) => Number(v);
pg.types.setTypeParser(20, toNumber);
pg.types.setTypeParser(1700, toNumber);

/** A client class that counts its statements (pinkas_db_round_trips_total): the hot path's cost, measured where it is paid. */
function countingClient(mode: Mode): typeof pg.Client {
  const count = dbRoundTripCounter(mode);
  class CountingClient extends pg.Client {}
  const send = pg.Client.prototype.query;
  CountingClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    count();
    return (send as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof send;
  return CountingClient;
}

/** One pool for one database; every domain queries through it. */
export async function openPool(mode: Mode, url: string, opts: { poolSize?: number; kind?: Database['kind'] } = {}): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, Client: countingClient(mode) });
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => {});
  const probe = await pool.connect();
  probe.release();
  const db = drizzle(pool) as unknown as Db;
  let closed = false;
  return {
    mode,
    kind: opts.kind ?? 'server',
    db,
    pool,
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
