import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { alive, killServer, postmasterPid, startServer, tempDataDir, type ServerProcess } from '../helpers/server-process.ts';

// WEB_CONCURRENCY=2 (src/runtime/supervisor.ts): a supervisor owning the embedded cluster, two web
// workers sharing the port, one background worker at BACKGROUND_NICE. Shared state (the rate limit)
// lives in PostgreSQL; a dead worker is replaced; SIGTERM drains everything and stops the cluster.
const dataDir = tempDataDir('pinkas-supervised-');
let server: ServerProcess | null = null;

afterAll(async () => {
  if (server) await killServer(server);
  const pm = postmasterPid(dataDir);
  if (pm && alive(pm)) process.kill(pm, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The worker processes of the supervisor, with their niceness. */
function workers(): { pid: number; nice: number }[] {
  let out = '';
  try {
    out = execFileSync('pgrep', ['-P', String(server!.child.pid)], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return out
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => alive(pid))
    .map((pid) => ({ pid, nice: Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[16]) }));
}

async function api(path: string, key: string, init: { method?: string; body?: unknown } = {}) {
  // A new connection per request (no keep-alive), so requests spread over the web workers.
  const r = await fetch(`${server!.base}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'x-api-key': key, connection: 'close', ...(init.body ? { 'content-type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: r.status, body: (await r.json()) as any };
}

describe('a supervised server (WEB_CONCURRENCY=2)', () => {
  let key: string;
  let bid: string;

  it('starts two web workers and a background worker at lower priority, and serves the API', async () => {
    server = await startServer(dataDir, { via: 'node', env: { WEB_CONCURRENCY: '2', RATE_LIMIT_PER_MINUTE: '200' } });
    key = server.firstKey()!;
    expect(key).toMatch(/^bk_test_/);
    const ws = workers();
    expect(ws).toHaveLength(3);
    expect(ws.map((w) => w.nice).sort()).toEqual([0, 0, 10]);
    const r = await api('/v1/businesses', key, { method: 'POST', body: { name: 'עסק מפוקח', taxId: '516179157', dealerType: 'company' } });
    expect(r.status).toBe(201);
    bid = r.body.business.id;
  }, 120_000);

  it('issues through the web workers and renders the PDF in the background worker', async () => {
    const d = await api(`/v1/businesses/${bid}/documents`, key, {
      method: 'POST',
      body: { docType: 320, lines: [{ description: 'שירות', quantity: 1, unitPriceExVat: 10_000 }], payments: [{ method: 'cash', amount: 11_800 }] },
    });
    expect(d.status).toBe(201);
    const issued = await api(`/v1/businesses/${bid}/documents/${d.body.document.id}/issue`, key, { method: 'POST' });
    expect(issued.status).toBe(201);
    expect(issued.body.document.docNumber).toBe(1);
    let files = null;
    for (let i = 0; i < 240 && !files; i++) {
      files = (await api(`/v1/businesses/${bid}/documents/${d.body.document.id}`, key)).body.document.files;
      if (!files) await sleep(250);
    }
    expect(files).toMatchObject({ origin: expect.any(String), copy: expect.any(String) });
  }, 120_000);

  it('shares the rate limit between the web workers (it lives in PostgreSQL)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 210; i++) statuses.push((await api('/v1/keys', key)).status);
    // 200 a minute for the key, whichever worker answered (some were spent above).
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(200);
    expect(statuses.at(-1)).toBe(429);
  }, 60_000);

  it('replaces a web worker that dies, and keeps serving', async () => {
    const before = workers().filter((w) => w.nice === 0);
    process.kill(before[0].pid, 'SIGKILL');
    for (let i = 0; i < 400; i++) {
      const now = workers().filter((w) => w.nice === 0);
      if (now.length === 2 && !now.some((w) => w.pid === before[0].pid)) break;
      await sleep(100);
    }
    const after = workers().filter((w) => w.nice === 0);
    expect(after).toHaveLength(2);
    expect(after.map((w) => w.pid)).not.toContain(before[0].pid);
    const r = await fetch(`${server!.base}/healthz`);
    expect(r.status).toBe(200);
  }, 60_000);

  it('SIGTERM drains the workers, stops the embedded cluster and exits 0', async () => {
    const pm = postmasterPid(dataDir)!;
    const ws = workers();
    expect(alive(pm)).toBe(true);
    process.kill(server!.child.pid!, 'SIGTERM');
    const exit = await server!.exited;
    expect(exit.code).toBe(0);
    for (const w of ws) expect(alive(w.pid)).toBe(false);
    expect(alive(pm)).toBe(false);
    server = null;
  }, 60_000);
});
