import path from 'node:path';
import type { Config } from '../config.ts';
import { openEmbedded, openServer, type Database, type Mode } from './engine.ts';
import { lockDataDir } from './datadir-lock.ts';
import { migrate } from './migrate.ts';

export interface OpenDatabases {
  databases: Record<Mode, Database>;
  close(): Promise<void>;
}

/**
 * Opens live and sandbox as configured (server PostgreSQL, or embedded under DATA_DIR behind an
 * exclusive lock) and migrates both.
 */
export async function openDatabases(config: Config): Promise<OpenDatabases> {
  let release: (() => void) | null = null;
  let live: Database;
  let sandbox: Database;
  if (config.databaseUrl && config.sandboxDatabaseUrl) {
    live = await openServer('live', config.databaseUrl);
    sandbox = await openServer('sandbox', config.sandboxDatabaseUrl);
  } else {
    release = lockDataDir(config.dataDir);
    try {
      live = await openEmbedded('live', { dataDir: path.join(config.dataDir, 'live') });
      sandbox = await openEmbedded('sandbox', { dataDir: path.join(config.dataDir, 'sandbox') });
    } catch (err) {
      release();
      throw err;
    }
  }
  await migrate(live);
  await migrate(sandbox);
  return {
    databases: { live, sandbox },
    close: async () => {
      await live.close();
      await sandbox.close();
      release?.();
    },
  };
}
