import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { pruneRequests } from '../../src/request-log/list.ts';

let env: TestEnv;
let a: TestAccount;
let other: TestAccount;

type Row = { requestId: string; method: string; path: string; status: number; reason: string | null; durationMs: number; keyPrefix: string; createdAt: string };

const read = async (key: string, query = '') => {
  const res = await env.call('GET', `/v1/requests${query}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { requests: Row[]; nextCursor: string | null };
};
const stored = async (mode: 'live' | 'sandbox') => Number((await env.sql<{ n: number }>(mode, 'SELECT count(*)::int AS n FROM api_requests'))[0].n);

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  other = await env.account();
});
afterAll(async () => {
  await env?.close();
});

describe('the request log', () => {
  it('is buffered in the process: answering a request writes nothing; a flush writes the batch', async () => {
    await env.s.requestLog.flush();
    const before = await stored('sandbox');
    for (let i = 0; i < 3; i++) expect((await env.call('GET', '/v1/keys', { key: a.test })).status).toBe(200);
    expect(await stored('sandbox')).toBe(before);
    await env.s.requestLog.flush();
    expect(await stored('sandbox')).toBe(before + 3);
  });

  it("answers the account's requests in the key's mode, newest first, with status, reason, duration and key prefix", async () => {
    env.clock.advance(1_000);
    const b = await env.business(a.test);
    env.clock.advance(1_000);
    const missing = await env.call('GET', '/v1/webhooks/we_nope?x=secret-search', { key: a.test, headers: { 'x-request-id': 'my-trace:42' } });
    expect(missing.status).toBe(404);
    env.clock.advance(1_000);
    expect((await env.call('GET', '/v1/events?take=0', { key: a.test })).status).toBe(400);
    env.clock.advance(1_000);
    const docsOnly = await a.mint({ mode: 'test', scopes: ['documents'], label: 'docs' });
    expect((await env.call('GET', '/v1/webhooks', { key: docsOnly.secret })).status).toBe(403);
    await env.call('GET', '/v1/keys', { key: other.test });
    await env.call('GET', '/v1/keys', { key: a.live });
    // No key, or an unknown one: no account to log it under.
    await env.call('GET', '/v1/keys', { key: 'bk_test_unknownunknownunknownunknown' });

    const { requests } = await read(a.test, '?take=4');
    expect(requests.map((r) => `${r.method} ${r.path} ${r.status} ${r.reason}`)).toEqual([
      'GET /v1/webhooks 403 forbidden',
      'GET /v1/events 400 validation',
      'GET /v1/webhooks/we_nope 404 not_found',
      `POST /v1/businesses 201 null`,
    ]);
    expect(requests[0].keyPrefix).toBe(docsOnly.secret.slice(0, requests[0].keyPrefix.length));
    expect(requests[2]).toMatchObject({ requestId: 'my-trace:42', keyPrefix: a.test.slice(0, requests[2].keyPrefix.length) });
    expect(requests[2].durationMs).toBeGreaterThanOrEqual(0);
    expect(requests[3].createdAt < requests[2].createdAt).toBe(true);
    expect(b.id).toMatch(/^biz_/);
    // Live requests are in the live database, read with a live key.
    expect((await read(a.live)).requests.map((r) => r.path)).toContain('/v1/keys');
    expect((await read(a.live)).requests.every((r) => r.keyPrefix.startsWith('bk_live_'))).toBe(true);
  });

  it("finds a request by its id, and never another account's", async () => {
    const mine = await read(a.test, '?requestId=my-trace:42');
    expect(mine.requests).toHaveLength(1);
    expect(mine.requests[0].path).toBe('/v1/webhooks/we_nope');
    expect((await read(other.test, '?requestId=my-trace:42')).requests).toEqual([]);
    // The other account's own request, by its generated id: only they find it.
    const theirs = await env.call('GET', '/v1/keys', { key: other.test });
    const id = String(theirs.headers['x-request-id']);
    expect((await read(other.test, `?requestId=${id}`)).requests).toHaveLength(1);
    expect((await read(a.test, `?requestId=${id}`)).requests).toEqual([]);
    const bad = await env.call('GET', '/v1/requests?requestId=a%20b', { key: a.test });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('querystring.requestId');
  });

  it('pages with cursor without repeating or skipping', async () => {
    const all = (await read(a.test, '?take=1000')).requests;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await read(a.test, `?take=3${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.requests.map((r) => r.requestId));
      cursor = page.nextCursor;
    } while (cursor);
    // Each read is itself logged after it answers (newer rows, in the same instant): every row that existed at the
    // first read comes exactly once.
    expect(new Set(seen).size).toBe(seen.length);
    for (const r of all) expect(seen).toContain(r.requestId);
  });

  it('keeps 7 days', async () => {
    await env.s.requestLog.flush();
    const before = await stored('sandbox');
    expect(before).toBeGreaterThan(0);
    expect(await pruneRequests(env.db.sandbox.db, new Date(env.clock.now().getTime() + 6 * 86_400_000))).toBe(0);
    expect(await pruneRequests(env.db.sandbox.db, new Date(env.clock.now().getTime() + 8 * 86_400_000))).toBe(before);
  });
});
