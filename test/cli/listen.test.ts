/**
 * `pinkas listen` as a user runs it: a real server process, a real local HTTP receiver, the CLI in its own
 * process; the server is stopped and started again in the middle, and the listener carries on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/databases.ts';
import { ROOT, killServer, startServer, tempDataDir, type ServerProcess } from '../helpers/server-process.ts';
import { verifyWebhook } from '../../src/webhooks/signature.ts';
import { nodeEntry } from '../helpers/entry-bundle.ts';

const SECRET = 'whsec_listen-test-secret';
type Got = { headers: Record<string, string | string[] | undefined>; raw: Buffer; body: any };

let server: ServerProcess;
let receiver: Server;
let listener: ChildProcess;
let listenerOut = '';
let listenerErr = '';
const got: Got[] = [];
let env: Record<string, string>;
let key: string;

async function until<T>(what: string, check: () => T | undefined | false, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\nlistener stdout:\n${listenerOut}\nstderr:\n${listenerErr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      got.push({ headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const live = await freshDatabase('live');
  const sandbox = await freshDatabase('sandbox');
  env = { DATABASE_URL: live.url, SANDBOX_DATABASE_URL: sandbox.url };
  server = await startServer(tempDataDir('pinkas-listen-'), { env, via: 'node' });
  key = server.firstKey()!;
  expect(key).toMatch(/^bk_test_/);
}, 120_000);

afterAll(async () => {
  listener?.kill('SIGTERM');
  if (server) await killServer(server);
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('pinkas listen', () => {
  it('refuses a live key, and a missing --forward-to, before sending anything', async () => {
    const run = (args: string[], extra: Record<string, string>) =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        const child = spawn(process.execPath, [...nodeEntry('src/cli/main.ts'), ...args], { cwd: ROOT, env: { ...process.env, ...extra } });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        child.on('exit', (code) => resolve({ code, err }));
      });
    const live = await run(['listen', '--forward-to', 'http://localhost:1/'], { PINKAS_API_KEY: 'bk_live_x' });
    expect(live.code).toBe(2);
    expect(live.err).toContain('PINKAS_API_KEY to a sandbox key');
    const noTarget = await run(['listen'], { PINKAS_API_KEY: key });
    expect(noTarget.code).toBe(2);
    expect(noTarget.err).toContain('--forward-to');
  }, 60_000);

  it('forwards each new event signed like a delivery, one line each, and survives the server restarting', async () => {
    const before = await api('POST', '/v1/businesses', { name: 'לפני ההאזנה בע"מ', taxId: '516179157', dealerType: 'company' });
    expect(before.status).toBe(201);
    await api('POST', `/v1/businesses/${before.body.business.id}/deactivate`);
    const port = (receiver.address() as AddressInfo).port;
    listener = spawn(
      process.execPath,
      [...nodeEntry('src/cli/main.ts'), 'listen', '--forward-to', `http://localhost:${port}/hooks`, '--url', server.base, '--poll-ms', '200'],
      { cwd: ROOT, env: { ...process.env, PINKAS_API_KEY: key, PINKAS_WEBHOOK_SECRET: SECRET } },
    );
    listener.stdout!.on('data', (d) => (listenerOut += d));
    listener.stderr!.on('data', (d) => (listenerErr += d));
    await until('the listener to start', () => listenerErr.includes('Forwarding new sandbox events'));

    const biz = (await api('POST', '/v1/businesses', { name: 'מאזינים בע"מ', taxId: '516179157', dealerType: 'company' })).body.business;
    expect((await api('POST', `/v1/businesses/${biz.id}/deactivate`)).status).toBe(200);
    const first = await until('the first forward', () => got.find((g) => g.body.businessId === biz.id));
    // Only what happened after the start: the earlier business's event is not forwarded.
    expect(got.some((g) => g.body.businessId === before.body.business.id)).toBe(false);
    expect(first.headers['x-service-event']).toBe('business.status_changed');
    expect(first.headers['x-service-mode']).toBe('sandbox');
    expect(first.body).toMatchObject({ event: 'business.status_changed', mode: 'sandbox', businessId: biz.id, data: { active: false } });
    expect(first.body.id).toBe(first.headers['x-service-delivery']);
    expect(verifyWebhook(SECRET, first.raw, first.headers['x-service-signature'] as string).ok).toBe(true);
    const [event] = (await api('GET', `/v1/events?businessId=${biz.id}`)).body.events;
    expect(first.body.id).toBe(`del_${event.id.slice(4)}`);
    await until('its line', () => listenerOut.includes(`business.status_changed  ${event.id}`) && listenerOut.includes('-> 204'));

    // The server goes away and comes back on the same port and databases.
    await killServer(server);
    await until('the listener to notice', () => listenerErr.includes('server unreachable'));
    server = await startServer(server.dataDir, { env, via: 'node', port: server.port });
    expect((await api('POST', `/v1/businesses/${biz.id}/reactivate`)).status).toBe(200);
    const second = await until('the forward after the restart', () => got.find((g) => g.body.businessId === biz.id && g.body.data.active === true));
    expect(verifyWebhook(SECRET, second.raw, second.headers['x-service-signature'] as string).ok).toBe(true);
    // Said once the poll that reached the server is done, which may be after it forwarded this event.
    await until('the listener to say the server is back', () => listenerErr.includes('server is back'));
    // Each event once.
    expect(new Set(got.map((g) => g.body.id)).size).toBe(got.length);
    expect(listenerOut.trim().split('\n')).toHaveLength(got.length);
  }, 180_000);
});
