import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { mintKey, revokeKey } from '../../src/accounts/keys.ts';
import { setAccountLimits, createAccount } from '../../src/accounts/accounts.ts';
import { query } from '../../src/platform/db/sql.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

describe('API keys and authentication', () => {
  it('401 unauthorized for a missing, malformed, unknown, revoked or expired key — with X-Service-Mode', async () => {
    const a = await env.account();
    const missing = await env.call('GET', '/v1/keys');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: expect.stringContaining('X-Api-Key'), reason: 'unauthorized', requestId: expect.stringMatching(/^req_/) });
    expect(missing.headers['x-service-mode']).toBe('live');

    for (const key of ['nonsense', 'bk_test_short', `bk_test_${'A'.repeat(32)}`]) {
      const r = await env.call('GET', '/v1/keys', { key });
      expect(r.status).toBe(401);
      expect(r.body.reason).toBe('unauthorized');
    }
    expect((await env.call('GET', '/v1/keys', { key: `bk_test_${'A'.repeat(32)}` })).headers['x-service-mode']).toBe('sandbox');

    const doomed = await a.mint({ mode: 'test' });
    expect((await env.call('GET', '/v1/keys', { key: doomed.secret })).status).toBe(200);
    await revokeKey(env.db.live.db, env.clock.now(), doomed.id);
    expect((await env.call('GET', '/v1/keys', { key: doomed.secret })).status).toBe(401);

    const expiring = await a.mint({ mode: 'live', expiresAt: new Date(env.clock.now().getTime() + 60_000) });
    expect((await env.call('GET', '/v1/keys', { key: expiring.secret })).status).toBe(200);
    env.clock.advance(60_000);
    expect((await env.call('GET', '/v1/keys', { key: expiring.secret })).status).toBe(401);
  });

  it('stores only a hash and a display prefix', async () => {
    const a = await env.account();
    const rows = await query<{ key_hash: string; prefix: string }>(env.db.live.db, sql`SELECT key_hash, prefix FROM api_keys WHERE account_id = ${a.id}`);
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect([a.live, a.test]).not.toContain(r.key_hash);
      expect(r.prefix).toHaveLength(12);
    }
    const all = JSON.stringify(await env.sql('live', 'SELECT * FROM api_keys'));
    expect(all).not.toContain(a.live.slice(12));
  });

  it('GET /keys lists every key of the account, marks the caller, and tracks lastUsedAt', async () => {
    const a = await env.account();
    const other = await env.account();
    const before = (await env.call('GET', '/v1/keys', { key: a.live })).body.keys;
    expect(before).toHaveLength(2);
    const mine = before.find((k: any) => k.current);
    expect(mine.id).toBe(a.liveKeyId);
    expect(mine.mode).toBe('live');
    expect(mine.scopes).toEqual(['businesses', 'documents', 'expenses', 'export']);
    expect(mine.lastUsedAt).toBe(env.clock.now().toISOString());
    expect(before.find((k: any) => k.id === a.testKeyId).current).toBe(false);
    expect(before.some((k: any) => k.id === other.liveKeyId)).toBe(false);
    expect(JSON.stringify(before)).not.toContain(a.live);
  });

  it('a test key reads and writes only the sandbox database, a live key only live', async () => {
    const a = await env.account();
    const inSandbox = await env.business(a.test, { name: 'Sandbox Ltd' });
    const inLive = await env.business(a.live, { name: 'Live Ltd' });
    const sandboxList = await env.call('GET', '/v1/businesses', { key: a.test });
    expect(sandboxList.headers['x-service-mode']).toBe('sandbox');
    expect(sandboxList.body.businesses.map((b: any) => b.id)).toEqual([inSandbox.id]);
    const liveList = await env.call('GET', '/v1/businesses', { key: a.live });
    expect(liveList.headers['x-service-mode']).toBe('live');
    expect(liveList.body.businesses.map((b: any) => b.id)).toEqual([inLive.id]);
    expect((await env.call('GET', `/v1/businesses/${inSandbox.id}`, { key: a.live })).status).toBe(404);
    expect((await env.call('GET', `/v1/businesses/${inLive.id}`, { key: a.test })).status).toBe(404);
    expect(await env.sql('live', `SELECT id FROM businesses WHERE id = '${inSandbox.id}'`)).toEqual([]);
    expect(await env.sql('sandbox', `SELECT id FROM businesses WHERE id = '${inLive.id}'`)).toEqual([]);
  });

  it('403 forbidden for a key lacking the scope', async () => {
    const a = await env.account();
    const narrow = await a.mint({ mode: 'test', scopes: ['documents'] });
    const r = await env.call('GET', '/v1/businesses', { key: narrow.secret });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: expect.stringContaining('businesses'), reason: 'forbidden', requestId: expect.stringMatching(/^req_/) });
    const files = await env.call('GET', '/v1/files/file_x', { key: narrow.secret });
    expect(files.status).toBe(403);
  });

  it('ocr is never a default scope and only granted accounts get it', async () => {
    const a = await env.account();
    await expect(a.mint({ scopes: ['ocr'] })).rejects.toMatchObject({ status: 403, reason: 'forbidden' });
    const granted = await env.account({ ocr: true });
    const k = await granted.mint({ scopes: ['ocr', 'expenses'] });
    const keys = (await env.call('GET', '/v1/keys', { key: k.secret })).body.keys;
    expect(keys.find((x: any) => x.current).scopes).toEqual(['ocr', 'expenses']);
    expect(keys.find((x: any) => x.id === granted.liveKeyId).scopes).not.toContain('ocr');
  });

  it('at most 10 active keys per account, configurable per account; revoked and expired keys do not count', async () => {
    const a = await env.account(); // 2 keys
    const minted = [];
    for (let i = 0; i < 8; i++) minted.push(await a.mint());
    await expect(a.mint()).rejects.toMatchObject({ status: 409, reason: 'conflict' });
    await revokeKey(env.db.live.db, env.clock.now(), minted[0].id);
    await a.mint();
    await setAccountLimits(env.db.live.db, a.id, { maxActiveKeys: 12 });
    await a.mint();
    await a.mint();
    await expect(a.mint()).rejects.toMatchObject({ status: 409 });
  });

  it('keys are minted only for approved accounts', async () => {
    const pending = await createAccount(env.db.live.db, env.clock.now(), { name: 'Waiting', approvalStatus: 'pending' });
    await expect(mintKey(env.db.live.db, env.clock.now(), { accountId: pending.id, mode: 'test' })).rejects.toMatchObject({
      status: 403,
      reason: 'approval_required',
    });
  });

  it('two racing mints cannot pass the active-key limit together', async () => {
    const a = await env.account();
    await setAccountLimits(env.db.live.db, a.id, { maxActiveKeys: 3 });
    const results = await Promise.allSettled([a.mint(), a.mint(), a.mint(), a.mint()]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });
});

describe('rate limit: 60 per minute per key, sliding window', () => {
  it('answers 429 rate_limited with Retry-After and rate-limit headers, then frees as the window slides', async () => {
    const limited = await createTestEnv({ env: { RATE_LIMIT_PER_MINUTE: '60' } });
    try {
      const a = await limited.account();
      const other = await limited.account();
      const first = await limited.call('GET', '/v1/keys', { key: a.live });
      expect(first.headers['x-ratelimit-limit']).toBe('60');
      expect(first.headers['x-ratelimit-remaining']).toBe('59');
      limited.clock.advance(30_000);
      for (let i = 0; i < 59; i++) expect((await limited.call('GET', '/v1/keys', { key: a.live })).status).toBe(200);
      const refused = await limited.call('GET', '/v1/keys', { key: a.live });
      expect(refused.status).toBe(429);
      expect(refused.body.reason).toBe('rate_limited');
      expect(refused.headers['retry-after']).toBe('30');
      expect(refused.headers['x-service-mode']).toBe('live');
      // Another key is not affected.
      expect((await limited.call('GET', '/v1/keys', { key: other.live })).status).toBe(200);
      // 30 s later the first request has left the window: exactly one more fits.
      limited.clock.advance(30_000);
      expect((await limited.call('GET', '/v1/keys', { key: a.live })).status).toBe(200);
      expect((await limited.call('GET', '/v1/keys', { key: a.live })).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('rate limit across processes sharing one PostgreSQL database', () => {
  it('two limiters (two API processes) share one sliding window per key', async () => {
    const { PostgresRateLimiter } = await import('../../src/platform/rate-limit.ts');
    const { openPool } = await import('../../src/platform/db/engine.ts');
    // A second connection pool stands for a second process.
    const other = await openPool('live', env.urls.live, { poolSize: 2 });
    try {
      const p1 = new PostgresRateLimiter(env.db.live, 5);
      const p2 = new PostgresRateLimiter(other, 5);
      const t0 = 5_000_000;
      // Alternating processes, one window.
      for (let i = 0; i < 5; i++) expect((await (i % 2 ? p1 : p2).hit('key_seq', t0 + i)).allowed).toBe(true);
      const refused = await p1.hit('key_seq', t0 + 5);
      expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 59_995 });
      expect((await p2.hit('key_seq', t0 + 60_000)).allowed).toBe(true); // t0 left the window
      expect((await p1.hit('key_seq', t0 + 60_000)).allowed).toBe(false); // t0+1 has not
      // A concurrent burst from both processes: exactly the limit passes.
      const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? p1 : p2).hit('key_burst', t0)));
      expect(burst.filter((r) => r.allowed)).toHaveLength(5);
    } finally {
      await other.close();
    }
  });

  it('a limit above EXACT_LOG_LIMIT counts per second: never more than the limit, freed a second late at most', async () => {
    const { PostgresRateLimiter, EXACT_LOG_LIMIT } = await import('../../src/platform/rate-limit.ts');
    const { openPool } = await import('../../src/platform/db/engine.ts');
    const other = await openPool('live', env.urls.live, { poolSize: 4 });
    try {
      const limit = EXACT_LOG_LIMIT + 1;
      const p1 = new PostgresRateLimiter(env.db.live, limit);
      const p2 = new PostgresRateLimiter(other, limit);
      const t0 = 7_000_400; // 400 ms into second 7000
      // 1,000 hits in second 7000, the rest of the limit 30 s later.
      for (let i = 0; i < 1000; i++) expect((await (i % 2 ? p1 : p2).hit('key_sec', t0)).allowed).toBe(true);
      expect(await p1.peek('key_sec', t0 + 30_000)).toMatchObject({ allowed: true, remaining: 1 });
      expect(await p2.hit('key_sec', t0 + 30_000)).toMatchObject({ allowed: true, remaining: 0 });
      // Full: the next fits when the last millisecond of second 7000 has left the window.
      const refused = await p1.hit('key_sec', t0 + 30_001);
      expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 7_000_999 + 60_000 - (t0 + 30_001) });
      expect(await p2.peek('key_sec', t0 + 30_001)).toMatchObject({ allowed: false, retryAfterMs: refused.retryAfterMs });
      // Exactly one window after t0 second 7000 still counts (a hit counts up to a second longer) ...
      expect((await p1.hit('key_sec', t0 + 60_000)).allowed).toBe(false);
      // ... and once it has left, its 1,000 free up together.
      expect((await p2.hit('key_sec', 7_000_998 + 60_000)).allowed).toBe(false);
      expect(await p2.hit('key_sec', 7_000_999 + 60_000)).toMatchObject({ allowed: true, remaining: 999 });
      // A concurrent burst from both processes: exactly the limit passes.
      const burst = await Promise.all(Array.from({ length: limit + 40 }, (_, i) => (i % 2 ? p1 : p2).hit('key_sec_burst', t0)));
      expect(burst.filter((r) => r.allowed)).toHaveLength(limit);
      // Seconds that left the window are deleted when a key's new second begins.
      await p1.hit('key_sec', 7_100_000);
      const rows = await env.sql('live', `SELECT second FROM rate_limit_seconds WHERE key_id = 'key_sec' ORDER BY second`);
      expect(rows.map((r: any) => Number(r.second))).toEqual([7060, 7100]);
    } finally {
      await other.close();
    }
  });

  it('a large limit is claimed in blocks of limit/6000 hits a second: one round trip per block, still never more than the limit', async () => {
    const { PostgresRateLimiter } = await import('../../src/platform/rate-limit.ts');
    const { openPool } = await import('../../src/platform/db/engine.ts');
    const other = await openPool('live', env.urls.live, { poolSize: 4 });
    try {
      const limit = 60_000; // blocks of 10
      const p1 = new PostgresRateLimiter(env.db.live, limit);
      const p2 = new PostgresRateLimiter(other, limit);
      const s = 9_000;
      const seconds = async (key: string) =>
        (await env.sql('live', `SELECT second, n FROM rate_limit_seconds WHERE key_id = '${key}' ORDER BY second`)).map((r: any) => [Number(r.second), r.n]);
      // 25 hits in one second: three blocks taken, the remaining count is the window's less the hits spent.
      let last;
      for (let i = 0; i < 25; i++) last = await p1.hit('key_block', s * 1000 + i);
      expect(last).toMatchObject({ allowed: true, remaining: limit - 25 });
      expect(await seconds('key_block')).toEqual([[s, 30]]);
      // A new second: what was not spent stays counted (lost), a new block is taken.
      expect((await p1.hit('key_block', (s + 1) * 1000)).allowed).toBe(true);
      expect(await seconds('key_block')).toEqual([
        [s, 30],
        [s + 1, 10],
      ]);
      // 15 left in the window: a concurrent burst of both processes passes exactly 15.
      await env.sql('live', `INSERT INTO rate_limit_seconds VALUES ('key_full', ${s - 5}, ${limit - 15})`);
      const burst = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? p1 : p2).hit('key_full', s * 1000 + 500)));
      expect(burst.filter((r) => r.allowed)).toHaveLength(15);
      const refused = burst.find((r) => !r.allowed)!;
      expect(refused).toMatchObject({ remaining: 0, retryAfterMs: (s - 5) * 1000 + 999 + 60_000 - (s * 1000 + 500) });
      expect(await p2.peek('key_full', s * 1000 + 500)).toMatchObject({ allowed: false });
      // 3 left: p1 claims all 3 and spends one; it may still pass 2 (its peek says so), p2 none.
      await env.sql('live', `INSERT INTO rate_limit_seconds VALUES ('key_peek', ${s - 5}, ${limit - 3})`);
      expect(await p1.hit('key_peek', s * 1000)).toMatchObject({ allowed: true, remaining: 2 });
      expect(await p1.peek('key_peek', s * 1000 + 1)).toMatchObject({ allowed: true, remaining: 2 });
      expect(await p2.peek('key_peek', s * 1000 + 1)).toMatchObject({ allowed: false, remaining: 0 });
      expect((await p2.hit('key_peek', s * 1000 + 1)).allowed).toBe(false);
      expect(await p1.hit('key_peek', s * 1000 + 2)).toMatchObject({ allowed: true, remaining: 1 });
    } finally {
      await other.close();
    }
  });
});
