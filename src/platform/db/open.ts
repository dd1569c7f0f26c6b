import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Config } from '../config.ts';
import { openPool, type Database, type Mode } from './engine.ts';
import { DataDirLockedError, dataDirHolder, lockDataDir, type LockRole } from './datadir-lock.ts';
import { EmbeddedCluster, EmbeddedClusterError } from './embedded-cluster.ts';
import { migrate } from './migrate.ts';

export interface OpenDatabases {
  databases: Record<Mode, Database>;
  close(): Promise<void>;
}

/** The two databases of the embedded cluster. */
export const EMBEDDED_DATABASES: Record<Mode, string> = { live: 'pinkas_live', sandbox: 'pinkas_sandbox' };

/** A DATA_DIR written by pinkas before the move to PostgreSQL holds PGlite folders live/ and sandbox/. */
export function refuseLegacyPglite(dataDir: string): void {
  const found = ['live', 'sandbox'].filter((m) => existsSync(path.join(dataDir, m, 'PG_VERSION')));
  if (found.length === 0) return;
  throw new EmbeddedClusterError(
    `${dataDir} holds a PGlite database (${found.map((m) => `${m}/`).join(', ')}) from a pinkas version before the move to PostgreSQL; ` +
      'this version neither reads nor overwrites it. To carry its books over: start the previous pinkas version on this DATA_DIR, ' +
      'back up each business (POST /v1/businesses/{id}/backups), then start this version on a new DATA_DIR and restore each backup ' +
      '(pinkas backups restore). To start afresh instead, move the folder aside.',
  );
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      try {
        await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
      } catch (err) {
        // Another process (a CLI beside a starting server) created it first.
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    }
  } finally {
    await admin.end();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Owns the embedded cluster for this process: takes the data-folder lock, starts (or adopts) the
 * cluster, and stops it at close. A server waits for a CLI command that started the cluster to
 * finish; a second server refuses.
 */
async function ownCluster(cluster: EmbeddedCluster, dataDir: string, role: LockRole): Promise<{ port: number; stop(): Promise<void> }> {
  let release: () => void;
  for (let waited = 0; ; waited += 200) {
    try {
      release = lockDataDir(dataDir, role);
      break;
    } catch (err) {
      if (!(err instanceof DataDirLockedError) || err.holder.role !== 'cli' || role !== 'server' || waited > 120_000) throw err;
      await sleep(200);
    }
  }
  try {
    await cluster.initialise();
    const port = await cluster.start();
    return {
      port,
      stop: async () => {
        try {
          await cluster.stop();
        } finally {
          release();
        }
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

async function openEmbeddedDatabases(config: Config, role: LockRole): Promise<OpenDatabases> {
  refuseLegacyPglite(config.dataDir);
  const cluster = new EmbeddedCluster(config.dataDir);
  let port: number;
  let stop: () => Promise<void> = async () => {};
  const running = cluster.initialised ? cluster.running() : null;
  const holder = dataDirHolder(config.dataDir);
  if (role === 'cli' && running && holder?.role === 'server' && (await cluster.answers(running.port))) {
    // The CLI beside a running server: connect to its cluster, leave it running.
    port = running.port;
  } else if (role === 'cli' && holder) {
    // Another process is starting or using the cluster: wait until it answers, then connect.
    port = await waitForCluster(cluster);
  } else {
    ({ port, stop } = await ownCluster(cluster, config.dataDir, role));
  }
  try {
    const databases = {} as Record<Mode, Database>;
    for (const mode of ['live', 'sandbox'] as const) {
      await ensureDatabase(cluster.url('postgres', port), EMBEDDED_DATABASES[mode]);
      databases[mode] = await openPool(mode, cluster.url(EMBEDDED_DATABASES[mode], port), { poolSize: config.databasePoolSize, kind: 'embedded' });
      await migrate(databases[mode]);
    }
    return {
      databases,
      close: async () => {
        await Promise.allSettled(Object.values(databases).map((d) => d.close()));
        await stop();
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function waitForCluster(cluster: EmbeddedCluster): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const up = cluster.initialised ? cluster.running() : null;
    if (up && (await cluster.answers(up.port))) return up.port;
    await sleep(200);
  }
  throw new EmbeddedClusterError('the embedded PostgreSQL did not come up within 2 minutes');
}

/**
 * Opens live and sandbox as configured (server PostgreSQL through DATABASE_URL, or the embedded
 * cluster under DATA_DIR) and migrates both. `role` says who asks: the server owns the embedded
 * cluster; a CLI command uses a running one, or starts it for its own run when none runs.
 */
export async function openDatabases(config: Config, role: LockRole = 'server'): Promise<OpenDatabases> {
  if (!config.databaseUrl || !config.sandboxDatabaseUrl) return openEmbeddedDatabases(config, role);
  const live = await openPool('live', config.databaseUrl, { poolSize: config.databasePoolSize });
  const sandbox = await openPool('sandbox', config.sandboxDatabaseUrl, { poolSize: config.databasePoolSize });
  await migrate(live);
  await migrate(sandbox);
  return {
    databases: { live, sandbox },
    close: async () => {
      await live.close();
      await sandbox.close();
    },
  };
}

/**
 * A worker process of a supervised server (src/runtime): connects to the databases its supervisor
 * opened and migrated — the supervisor's embedded cluster, or the DATABASE_URL servers — without
 * taking the data-folder lock, starting anything or migrating. Closing ends its pools only.
 */
export async function attachDatabases(config: Config): Promise<OpenDatabases> {
  const urls: Record<Mode, string> =
    config.databaseUrl && config.sandboxDatabaseUrl
      ? { live: config.databaseUrl, sandbox: config.sandboxDatabaseUrl }
      : await (async () => {
          const cluster = new EmbeddedCluster(config.dataDir);
          const up = cluster.initialised ? cluster.running() : null;
          if (!up || !(await cluster.answers(up.port))) throw new EmbeddedClusterError(`the embedded PostgreSQL of ${config.dataDir} is not running`);
          return { live: cluster.url(EMBEDDED_DATABASES.live, up.port), sandbox: cluster.url(EMBEDDED_DATABASES.sandbox, up.port) };
        })();
  const kind = config.databaseUrl ? 'server' : 'embedded';
  const live = await openPool('live', urls.live, { poolSize: config.databasePoolSize, kind });
  const sandbox = await openPool('sandbox', urls.sandbox, { poolSize: config.databasePoolSize, kind }).catch(async (err) => {
    await live.close();
    throw err;
  });
  return {
    databases: { live, sandbox },
    close: async () => {
      await Promise.allSettled([live.close(), sandbox.close()]);
    },
  };
}
