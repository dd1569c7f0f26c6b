/**
 * Issue 28 item 2 across processes: two server processes (A and B) share one PostgreSQL, each with its
 * own caches and LISTEN connections. A change made through one — or by raw SQL — is refused by the
 * other on the very next request: a write's answer waits until every listening process acknowledged
 * its notification (InvalidationChannel.fence, console/account-data.ts), so that "next" follows the
 * revocation rather than racing it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { freshDatabase } from '../helpers/databases.ts';
import { killServer, startServer, tempDataDir, type ServerProcess } from '../helpers/server-process.ts';
import { mintKey } from '../../src/accounts/keys.ts';
import type { Database } from '../../src/platform/db/engine.ts';
import { query } from '../../src/platform/db/sql.ts';
import { sql } from 'drizzle-orm';
import { InvalidationChannel } from '../../src/platform/db/invalidation.ts';
import type { Logger } from '../../src/platform/logger.ts';

type Fresh = Awaited<ReturnType<typeof freshDatabase>>;
let live: Fresh;
let sandbox: Fresh;
/** The test's own LISTEN connection, to fence raw SQL as pinkas fences its own writes. */
let operator: InvalidationChannel;
const warnings: string[] = [];
let A: ServerProcess;
let B: ServerProcess;
const dataDirs = [tempDataDir('pinkas-cache-a-'), tempDataDir('pinkas-cache-b-')];

beforeAll(async () => {
  live = await freshDatabase('live', 2, 'server');
  sandbox = await freshDatabase('sandbox', 2, 'server');
  const env = { DATABASE_URL: live.url, SANDBOX_DATABASE_URL: sandbox.url };
  A = await startServer(dataDirs[0], { env });
  B = await startServer(dataDirs[1], { env });
  operator = new InvalidationChannel(live.database, { warn: (_: unknown, message: string) => warnings.push(message) } as unknown as Logger);
  await operator.start();
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  for (const server of [A, B]) if (server) await killServer(server);
  await live?.drop();
  await sandbox?.drop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const raw = (db: Database, text: string) => query(db.db, sql.raw(text));

async function api(server: ServerProcess, method: string, path: string, { key, body }: { key: string; body?: unknown }) {
  const r = await fetch(`${server.base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, body: (await r.json()) as any };
}

/** A browser on the console of one server: keeps cookies and the last page's CSRF token. */
class Browser {
  private cookies = new Map<string, string>();
  private csrf = '';
  constructor(private readonly server: ServerProcess) {}

  async go(method: 'GET' | 'POST', path: string, form?: Record<string, string | string[]>) {
    let body: string | undefined;
    if (method === 'POST') {
      const p = new URLSearchParams();
      for (const [k, v] of Object.entries({ ...(form ?? {}), _csrf: this.csrf })) for (const x of [v].flat()) p.append(k, x);
      body = p.toString();
    }
    const r = await fetch(`${this.server.base}${path}`, {
      method,
      redirect: 'manual',
      headers: { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body,
    });
    for (const c of r.headers.getSetCookie()) {
      const pair = c.split(';')[0];
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      if (value === '' || /max-age=0/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await r.text();
    this.csrf = /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? this.csrf;
    return { status: r.status, location: r.headers.get('location'), text };
  }
}

/** Signs up on A's console, is approved (raw SQL, as an operator would), signs in with the logged SMS code. */
async function signedIn(server: ServerProcess): Promise<{ browser: Browser; accountId: string }> {
  const browser = new Browser(server);
  const email = `cache-${Date.now()}@example.com`;
  const password = 'correct horse battery';
  await browser.go('GET', '/console/sign-up');
  expect((await browser.go('POST', '/console/sign-up', { name: 'Cache Integrations', email, phone: '+972541234567', password })).status).toBe(201);
  const [account] = await raw(live.database, `UPDATE accounts SET approval_status = 'approved' WHERE email = '${email}' RETURNING id`);
  await browser.go('GET', '/console/sign-in');
  expect((await browser.go('POST', '/console/sign-in', { email, password })).location).toBe('/console/verify');
  let code: string | undefined;
  for (let i = 0; i < 100 && !code; i++, await sleep(50)) code = [...(server.stdout() + server.stderr()).matchAll(/sign-in code: (\d{6})/g)].at(-1)?.[1];
  await browser.go('GET', '/console/verify');
  const v = await browser.go('POST', '/console/verify', { code: code! });
  expect(v.location).toBe('/console/keys');
  return { browser, accountId: String(account.id) };
}

describe('two server processes sharing one PostgreSQL', () => {
  let browser: Browser;
  let accountId: string;
  const mint = async (scopes?: string[]) => {
    const r = await mintKey(live.database.db, new Date(), { accountId, mode: 'test', scopes });
    return { id: r.key.id, secret: r.secret };
  };

  beforeAll(async () => {
    ({ browser, accountId } = await signedIn(A));
  }, 60_000);

  it("a key revoked through A's console is refused by B on the very next request", async () => {
    const k = await mint();
    expect((await api(A, 'GET', '/v1/keys', { key: k.secret })).status).toBe(200);
    expect((await api(B, 'GET', '/v1/keys', { key: k.secret })).status).toBe(200);
    expect((await api(B, 'GET', '/v1/keys', { key: k.secret })).status).toBe(200); // from B's cache now
    await browser.go('GET', '/console/keys');
    expect((await browser.go('POST', `/console/keys/${k.id}/revoke`)).status).toBe(303);
    expect((await api(B, 'GET', '/v1/keys', { key: k.secret })).status).toBe(401);
    expect((await api(A, 'GET', '/v1/keys', { key: k.secret })).status).toBe(401);
  });

  it('raw SQL on a key (scope change, revocation) is seen by both as soon as its notification is delivered', async () => {
    const k = await mint(['businesses', 'documents']);
    for (const server of [A, B, A, B]) expect((await api(server, 'GET', '/v1/businesses', { key: k.secret })).status).toBe(200);
    // An operator's statement has no answer to hold back: the fence (as a writer in pinkas uses)
    // waits until A and B acknowledge having received it, a few milliseconds at most.
    await raw(live.database, `UPDATE api_keys SET scopes = '{documents}' WHERE id = '${k.id}'`);
    await operator.fence();
    expect((await api(B, 'GET', '/v1/businesses', { key: k.secret })).status).toBe(403);
    expect((await api(A, 'GET', '/v1/businesses', { key: k.secret })).status).toBe(403);
    await raw(live.database, `UPDATE api_keys SET revoked_at = now() WHERE id = '${k.id}'`);
    await operator.fence();
    expect((await api(A, 'GET', '/v1/keys', { key: k.secret })).status).toBe(401);
    expect((await api(B, 'GET', '/v1/keys', { key: k.secret })).status).toBe(401);
  });

  it('a business deactivated through A refuses writes on B at once, and reactivated through B accepts them on A', async () => {
    const k = await mint();
    const created = await api(A, 'POST', '/v1/businesses', { key: k.secret, body: { name: 'עסק משותף בע"מ', taxId: '516179157', dealerType: 'company' } });
    expect(created.status).toBe(201);
    const bid = created.body.business.id;
    for (const server of [A, B])
      expect((await api(server, 'PATCH', `/v1/businesses/${bid}`, { key: k.secret, body: { phone: '03-1234567' } })).status).toBe(200);
    expect((await api(A, 'POST', `/v1/businesses/${bid}/deactivate`, { key: k.secret })).status).toBe(200);
    const refused = await api(B, 'PATCH', `/v1/businesses/${bid}`, { key: k.secret, body: { phone: '03-7654321' } });
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toBe('forbidden');
    expect((await api(B, 'POST', `/v1/businesses/${bid}/reactivate`, { key: k.secret })).status).toBe(200);
    expect((await api(A, 'PATCH', `/v1/businesses/${bid}`, { key: k.secret, body: { phone: '03-7654321' } })).status).toBe(200);
  });

  it("B's LISTEN connection terminated: a change B could not hear is not served stale; B listens and caches again", async () => {
    const listener = async () =>
      (
        await raw(live.database, `SELECT pid FROM pg_stat_activity WHERE application_name = 'pinkas cache ${B.child.pid}' AND datname = current_database()`)
      ).map((r) => Number(r.pid));
    const [before] = await listener();
    expect(before).toBeGreaterThan(0);
    const k = await mint();
    expect((await api(B, 'GET', '/v1/keys', { key: k.secret })).status).toBe(200);
    // The key is revoked in the very transaction that kills B's listener: B never hears that notification.
    await raw(live.database, `BEGIN; SELECT pg_terminate_backend(${before}); UPDATE api_keys SET revoked_at = now() WHERE id = '${k.id}'; COMMIT;`);
    let after: number[] = [];
    for (let i = 0; i < 200 && !(after.length === 1 && after[0] !== before); i++, await sleep(50)) after = await listener();
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
    expect((await api(B, 'GET', '/v1/keys', { key: k.secret })).status).toBe(401);
    // Listening again: the next change is heard at once.
    const k2 = await mint(['businesses']);
    expect((await api(B, 'GET', '/v1/businesses', { key: k2.secret })).status).toBe(200);
    await raw(live.database, `UPDATE api_keys SET scopes = '{documents}' WHERE id = '${k2.id}'`);
    await operator.fence();
    expect((await api(B, 'GET', '/v1/businesses', { key: k2.secret })).status).toBe(403);
  });

  it("from an address whose bad keys are shed, a key minted in A's console passes on B at once", async () => {
    let last = 0;
    for (let i = 0; i < 40; i++) last = (await api(i % 2 ? A : B, 'GET', '/v1/keys', { key: `bk_test_${String(i).padStart(32, 'X')}` })).status;
    expect(last).toBe(429); // the window is shared by both processes (rate_limit_hit)
    const page = await browser.go('GET', '/console/keys');
    expect(page.status).toBe(200);
    const minted = await browser.go('POST', '/console/keys', { label: 'after the burst', mode: 'test', scopes: ['businesses'] });
    expect(minted.status).toBe(201);
    const secret = /bk_test_[0-9A-Za-z]{32}/.exec(minted.text)![0];
    expect((await api(B, 'GET', '/v1/businesses', { key: secret })).status).toBe(200);
    expect((await api(B, 'GET', '/v1/keys', { key: `bk_test_${'Y'.repeat(32)}` })).status).toBe(429);
  });

  it('every fence was acknowledged by every listener in time (none waited out its timeout)', () => {
    expect(warnings).toEqual([]);
    for (const server of [A, B]) expect(server.stdout() + server.stderr()).not.toContain('acknowledged a cache fence');
  });
});
