import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { freshDatabase } from '../helpers/databases.ts';
import { spawn, spawnSync } from 'node:child_process';
import { killServer, ROOT, startServer, tempDataDir } from '../helpers/server-process.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';
import { nodeEntry } from '../helpers/entry-bundle.ts';

// Issue 31, at start: the store must answer before the server takes a request, and a server on server
// PostgreSQL without a bucket says that several processes need one.
let s3: S3TestServer;
let dbs: { live: Awaited<ReturnType<typeof freshDatabase>>; sandbox: Awaited<ReturnType<typeof freshDatabase>> };
let dataDir: string;

beforeAll(async () => {
  s3 = await startS3Server();
  dbs = { live: await freshDatabase('live', 2, 'server'), sandbox: await freshDatabase('sandbox', 2, 'server') };
  dataDir = tempDataDir('pinkas-files-start-');
});
afterAll(async () => {
  await s3?.close();
  await dbs?.live.drop();
  await dbs?.sandbox.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const serverDbs = () => ({ DATABASE_URL: dbs.live.url, SANDBOX_DATABASE_URL: dbs.sandbox.url });
const WARNING = /FILES_S3_BUCKET is not set: stored files .* are kept on this machine's disk\. A deployment of several server processes/;

describe('the server at start', () => {
  it('on server PostgreSQL without a bucket, warns that several processes need S3', async () => {
    const server = await startServer(dataDir, { env: serverDbs(), via: 'node' });
    try {
      expect(server.stderr()).toMatch(WARNING);
    } finally {
      await killServer(server);
    }
  });

  it('with a bucket, says nothing of the kind', async () => {
    const server = await startServer(dataDir, { env: { ...serverDbs(), ...s3.env }, via: 'node' });
    try {
      expect(server.stderr()).not.toMatch(/FILES_S3_BUCKET is not set/);
    } finally {
      await killServer(server);
    }
  });

  it('refuses to start (exit 3) when the bucket refuses its credentials', async () => {
    const refused = { ...s3.env, FILES_S3_ACCESS_KEY_ID: 'NOT-A-KEY' };
    const env = { ...process.env, DATA_DIR: dataDir, PINKAS_ENV: 'development', LOG_LEVEL: 'warn', PORT: '0', ...serverDbs(), ...refused };
    const child = spawn(process.execPath, nodeEntry('src/main.ts'), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(3);
    expect(stderr).toMatch(/pinkas: the S3 bucket s3:\/\/pinkas-files\/live\/ cannot be used \(HTTP 403\)/);
  });
});

describe('the files commands on the command line', () => {
  const cli = (...args: string[]) => {
    const env = { ...process.env, DATA_DIR: dataDir, PINKAS_ENV: 'test', LOG_LEVEL: 'silent', ...serverDbs() };
    const r = spawnSync(process.execPath, [...nodeEntry('src/cli/main.ts'), ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  it('verify, migrate and sweep run with --json; a bad --batch and an unknown flag are usage errors (exit 2)', () => {
    const verify = cli('files', 'verify', '--mode', 'test', '--json');
    expect(verify.code, verify.err).toBe(0);
    expect(JSON.parse(verify.out)).toMatchObject({ ok: true, test: { ok: true, problems: [] } });
    const migrate = cli('files', 'migrate', '--json');
    expect(migrate.code, migrate.err).toBe(0);
    expect(JSON.parse(migrate.out)).toMatchObject({ ok: true, live: { moved: 0, left: 0 }, test: { moved: 0, left: 0 } });
    const sweep = cli('files', 'sweep', '--mode', 'live', '--json');
    expect(sweep.code, sweep.err).toBe(0);
    expect(JSON.parse(sweep.out).live[0]).toMatchObject({ removed: 0, refused: 0 });
    expect(cli('files', 'migrate', '--batch', '0', '--json').code).toBe(2);
    expect(cli('files', 'verify', '--mdoe', 'test').code).toBe(2);
  }, 180_000); // five processes one after another, each loading the application (~10 s apiece on a loaded 2-core machine)
});
