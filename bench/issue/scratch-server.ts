/**
 * A server started as `npm start` starts it (its own process), on two scratch databases of a PostgreSQL
 * server (live and sandbox), for the issue path's measuring scripts; `close()` stops it and drops them.
 */
import pg from 'pg';
import { startServer, killServer, tempDataDir, type ServerProcess } from '../../test/helpers/server-process.ts';

export interface ScratchServer {
  server: ServerProcess;
  /** The URL of a database of that PostgreSQL server. */
  url(database: string): string;
  names: { live: string; sandbox: string };
  close(): Promise<void>;
}

export async function scratchServer(postgresUrl: string, prefix: string): Promise<ScratchServer> {
  const url = (database: string) => Object.assign(new URL(postgresUrl), { pathname: `/${database}` }).toString();
  const admin = new pg.Client({ connectionString: postgresUrl });
  admin.on('error', () => {});
  await admin.connect();
  const names = { live: `${prefix}_live_${process.pid}`, sandbox: `${prefix}_sandbox_${process.pid}` };
  for (const n of Object.values(names)) await admin.query(`CREATE DATABASE ${n}`);
  // SCRATCH_NODE_ARGS: the server's node options (`--cpu-prof --cpu-prof-dir=…`: its profile is written as it stops).
  const nodeArgs = process.env.SCRATCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const server = await startServer(tempDataDir(`pinkas-${prefix}-`), {
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '10000000', DATABASE_URL: url(names.live), SANDBOX_DATABASE_URL: url(names.sandbox) },
    nodeArgs,
  });
  return {
    server,
    url,
    names,
    async close() {
      if (nodeArgs.length) {
        // A clean stop, so that a profile is written.
        server.child.kill('SIGTERM');
        await Promise.race([server.exited, new Promise((r) => setTimeout(r, 60_000))]);
      }
      await killServer(server);
      for (const n of Object.values(names)) await admin.query(`DROP DATABASE IF EXISTS ${n} WITH (FORCE)`);
      await admin.end();
    },
  };
}
