/**
 * The server as a user runs it: its own process (`npm start`, or node with tsx directly when a
 * test needs the exact exit code), on a DATA_DIR of its own, with its embedded PostgreSQL.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/platform/db/embedded-cluster.ts';
import { processAlive } from '../../src/platform/db/process-alive.ts';
import { nodeEntry } from './entry-bundle.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** A temporary DATA_DIR that the unprivileged PostgreSQL user can reach when tests run as root. */
export function tempDataDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

export interface ServerProcess {
  child: ChildProcess;
  dataDir: string;
  port: number;
  base: string;
  /** Everything the process wrote so far. */
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The first-start sandbox key, when this start printed one. */
  firstKey(): string | null;
}

export async function startServer(
  dataDir: string,
  opts: { env?: Record<string, string>; via?: 'npm' | 'node'; port?: number; nodeArgs?: string[] } = {},
): Promise<ServerProcess> {
  const port = opts.port ?? (await freePort());
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    PINKAS_ENV: 'development',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    DATABASE_URL: '',
    SANDBOX_DATABASE_URL: '',
    ...opts.env,
  };
  // Its own process group, so that a test can kill npm, tsx and node at once.
  const child =
    opts.via === 'npm'
      ? spawn('npm', ['start', '--silent'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, [...(opts.nodeArgs ?? []), ...nodeEntry('src/main.ts')], {
          cwd: ROOT,
          env,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const base = `http://127.0.0.1:${port}`;
  let gone = false;
  void exited.then(() => (gone = true));
  for (let i = 0; ; i++) {
    if (gone) throw new Error(`the server exited before answering:\n${out}\n${err}`);
    try {
      const r = await fetch(`${base}/v1/openapi.json`);
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    if (i > 1200) throw new Error(`the server did not answer within 60 s:\n${out}\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    dataDir,
    port,
    base,
    stdout: () => out,
    stderr: () => err,
    exited,
    firstKey: () => /\b(bk_test_[0-9A-Za-z]{32})\b/.exec(out)?.[1] ?? null,
  };
}

/** SIGKILL of the server's whole process group (npm, node); resolves once the server process is dead. */
export async function killServer(server: ServerProcess): Promise<void> {
  let holder: number | null = null;
  try {
    holder = Number(JSON.parse(readFileSync(path.join(server.dataDir, 'pinkas.lock'), 'utf8')).pid);
  } catch {
    /* no lock: the server never got that far */
  }
  try {
    process.kill(-server.child.pid!, 'SIGKILL');
  } catch {
    /* already gone */
  }
  await server.exited;
  for (let i = 0; holder && processAlive(holder) && i < 200; i++) await new Promise((r) => setTimeout(r, 25));
}

/** The postmaster pid of the embedded cluster under `dataDir`, from its postmaster.pid. */
export function postmasterPid(dataDir: string): number | null {
  try {
    return Number(readFileSync(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}

/** Alive and not a zombie (a killed process lingers as one until init reaps it). */
export const alive = processAlive;

/** A client of one database of the embedded cluster under `dataDir` (it must be running). */
export async function clusterClient(dataDir: string, database: string): Promise<pg.Client> {
  const password = readFileSync(path.join(dataDir, 'postgres', 'password'), 'utf8').trim();
  const port = Number(readFileSync(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[3]);
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'pinkas', password, database });
  await client.connect();
  return client;
}

/** Runs the operator CLI on `dataDir`, as a user would; answers its parsed --json output. */
export function cli(dataDir: string, ...args: string[]): { code: number | null; json: any; stderr: string } {
  const r = spawnSync(process.execPath, [...nodeEntry('src/cli/main.ts'), ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', SANDBOX_DATABASE_URL: '', PINKAS_ENV: 'development', LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  let json: unknown = null;
  try {
    json = JSON.parse(r.stdout.trim());
  } catch {
    /* not JSON: the test shows stderr */
  }
  return { code: r.status, json, stderr: r.stderr + r.stdout };
}
