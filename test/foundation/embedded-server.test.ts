import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { alive, cli, clusterClient, killServer, postmasterPid, startServer, tempDataDir, type ServerProcess } from '../helpers/server-process.ts';

// The embedded default as a user meets it: `npm start` on an empty DATA_DIR runs a real PostgreSQL
// server under it; the CLI works beside it; signals stop it cleanly; a kill -9 is recovered.
const dataDir = tempDataDir('pinkas-embedded-');
let server: ServerProcess | null = null;

afterAll(async () => {
  if (server) {
    await killServer(server);
  }
  const pm = postmasterPid(dataDir);
  if (pm && alive(pm)) process.kill(pm, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function api(path: string, key: string, init: { method?: string; body?: unknown } = {}) {
  const r = await fetch(`${server!.base}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'x-api-key': key, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: r.status, body: (await r.json()) as any };
}

describe('embedded PostgreSQL', () => {
  let key: string;

  it('first start: initialises the cluster under DATA_DIR, prints the first key, serves the API', async () => {
    server = await startServer(dataDir, { via: 'node' });
    key = server.firstKey()!;
    expect(key).toMatch(/^bk_test_/);
    const cluster = path.join(dataDir, 'postgres');
    expect(existsSync(path.join(cluster, 'data', 'PG_VERSION'))).toBe(true);
    // The password is generated at first start and readable by its owner only.
    expect(statSync(path.join(cluster, 'password')).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(cluster, 'password'), 'utf8').trim().length).toBeGreaterThanOrEqual(24);
    const settings = JSON.parse(readFileSync(path.join(cluster, 'cluster.json'), 'utf8'));
    expect(settings.port).toBeGreaterThan(0);
    const r = await api('/v1/businesses', key, { method: 'POST', body: { name: 'עסק משובץ', taxId: '516179157', dealerType: 'company' } });
    expect(r.status).toBe(201);
  }, 120_000);

  it('is durable: fsync, synchronous_commit and full_page_writes are on, and it listens on loopback only', async () => {
    const client = await clusterClient(dataDir, 'pinkas_live');
    try {
      for (const setting of ['fsync', 'synchronous_commit', 'full_page_writes']) {
        const r = await client.query(`SHOW ${setting}`);
        expect(r.rows[0][setting], setting).toBe('on');
      }
      expect((await client.query('SHOW listen_addresses')).rows[0].listen_addresses).toBe('127.0.0.1');
      expect((await client.query('SHOW unix_socket_directories')).rows[0].unix_socket_directories).toBe('');
      expect((await client.query("SELECT current_setting('server_version_num')::int AS v")).rows[0].v).toBeGreaterThanOrEqual(150000);
    } finally {
      await client.end();
    }
  });

  it('the CLI works beside the running server, on the same cluster', () => {
    const accounts = cli(dataDir, 'accounts', 'list');
    expect(accounts.code, accounts.stderr).toBe(0);
    expect(accounts.json.accounts.length).toBe(1);
    const created = cli(dataDir, 'accounts', 'create', '--name', 'From the CLI');
    expect(created.code, created.stderr).toBe(0);
    const audit = cli(dataDir, 'audit', 'verify', '--mode', 'test');
    expect(audit.json.ok).toBe(true);
    // The server still runs on its cluster.
    expect(alive(postmasterPid(dataDir)!)).toBe(true);
  }, 120_000);

  it('a second server on the same DATA_DIR refuses, naming the running process and DATABASE_URL', async () => {
    const second = await startServer(dataDir, { via: 'node' }).catch((err: Error) => err);
    expect(second).toBeInstanceOf(Error);
    const message = (second as Error).message;
    expect(message).toContain(`already running on the data folder ${dataDir} (process ${server!.child.pid}, a server`);
    expect(message).toContain('DATABASE_URL');
    // The first server was not disturbed.
    expect((await api('/v1/businesses', key)).status).toBe(200);
  }, 120_000);

  it('SIGTERM drains (a request in flight is answered), closes a connection that sent nothing, stops PostgreSQL and exits 0', async () => {
    const pm = postmasterPid(dataDir)!;
    const businesses = (await api('/v1/businesses', key)).body.businesses;
    // A connection opened ahead of a request (an agent's spare socket, a preconnect): Node counts it busy, and
    // without closing it the server would wait for its headers timeout (60 s), then answer it 408.
    const silent = net.connect(server!.port, '127.0.0.1');
    let silentGot = '';
    silent.on('data', (c) => (silentGot += c));
    silent.on('error', () => {});
    const silentClosed = new Promise<void>((resolve) => silent.on('close', () => resolve()));
    await new Promise((resolve) => silent.once('connect', resolve));
    // A request whose body is still arriving when the signal comes: it must be answered, not cut.
    const body = JSON.stringify({ docType: 400, payments: [{ method: 'cash', amount: 1234 }] });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        `${server!.base}/v1/businesses/${businesses[0].id}/documents`,
        { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        process.kill(server!.child.pid!, 'SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 500);
      }, 300);
    });
    const r = await answered;
    expect(r.status, r.text).toBe(201);
    await silentClosed;
    expect(silentGot).toBe('');
    expect(await server!.exited).toEqual({ code: 0, signal: null });
    server = null;
    for (let i = 0; i < 100 && alive(pm); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pm)).toBe(false);
    expect(existsSync(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'pinkas.lock'))).toBe(false);
  }, 120_000);

  it('with no server running, the CLI starts the cluster for its command and stops it afterwards', () => {
    const r = cli(dataDir, 'accounts', 'list');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.accounts.map((a: { name: string }) => a.name)).toContain('From the CLI');
    expect(postmasterPid(dataDir)).toBeNull();
  }, 120_000);

  it('after kill -9 of the server (PostgreSQL orphaned), the next start adopts the orphan; the data is there', async () => {
    server = await startServer(dataDir, { via: 'node' });
    const pm = postmasterPid(dataDir)!;
    await killServer(server);
    expect(alive(pm)).toBe(true); // orphaned
    server = await startServer(dataDir, { via: 'node' });
    expect(server.firstKey()).toBeNull(); // not a first start
    const r = await api('/v1/businesses', key);
    expect(r.status).toBe(200);
    expect(r.body.businesses.map((b: { name: string }) => b.name)).toContain('עסק משובץ');
  }, 120_000);

  it('after kill -9 of the server and of PostgreSQL (postmaster.pid left behind), the next start recovers', async () => {
    const pm = postmasterPid(dataDir)!;
    process.kill(pm, 'SIGKILL');
    await killServer(server!);
    expect(existsSync(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'))).toBe(true);
    server = await startServer(dataDir, { via: 'npm' });
    expect(postmasterPid(dataDir)).not.toBe(pm);
    const r = await api('/v1/businesses', key);
    expect(r.body.businesses.map((b: { name: string }) => b.name)).toContain('עסק משובץ');
  }, 120_000);

  it('a DATA_DIR holding a PGlite database from an older pinkas is refused with what to do, and left untouched', async () => {
    const legacy = tempDataDir('pinkas-legacy-');
    try {
      mkdirSync(path.join(legacy, 'live'), { recursive: true });
      writeFileSync(path.join(legacy, 'live', 'PG_VERSION'), '17\n');
      const r = await startServer(legacy, { via: 'node' }).catch((err: Error) => err);
      expect(r).toBeInstanceOf(Error);
      expect((r as Error).message).toContain('holds a PGlite database');
      expect((r as Error).message).toContain('backups restore');
      expect(existsSync(path.join(legacy, 'postgres'))).toBe(false);
      expect(readFileSync(path.join(legacy, 'live', 'PG_VERSION'), 'utf8')).toBe('17\n');
      const c = cli(legacy, 'accounts', 'list');
      expect(c.code).toBe(1);
      expect(c.json.error).toContain('PGlite');
    } finally {
      rmSync(legacy, { recursive: true, force: true });
    }
  }, 120_000);
});
