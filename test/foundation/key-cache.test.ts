/**
 * Issue 28 item 2, in one process: keys, accounts, plans and businesses are answered from memory once
 * read; a change made on another connection (the CLI, another server, raw SQL) reaches the caches by
 * the NOTIFY of migration 0027; a dropped LISTEN connection flushes them and they read through until
 * it is back; the failed-authentication throttle sheds bad keys only. Two real server processes:
 * cache-processes.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { hashKey, mintKey } from '../../src/accounts/keys.ts';
import { setAccountLimits } from '../../src/accounts/accounts.ts';
import { upsertPlan } from '../../src/accounts/plans.ts';
import { setBusinessPlan } from '../../src/businesses/service.ts';
import { RecordCache } from '../../src/platform/record-cache.ts';
import type { InvalidationChannel } from '../../src/platform/db/invalidation.ts';

let env: TestEnv;
let a: TestAccount;
/** Another connection, as the CLI or another server process would write. */
let other: Record<'live' | 'sandbox', pg.Client>;
beforeAll(async () => {
  env = await createTestEnv({ cache: true });
  a = await env.account();
  other = { live: new pg.Client({ connectionString: env.urls.live }), sandbox: new pg.Client({ connectionString: env.urls.sandbox }) };
  await other.live.connect();
  await other.sandbox.connect();
});
afterAll(async () => {
  await other?.live.end();
  await other?.sandbox.end();
  await env?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 10_000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(10)) if (await ok()) return;
  throw new Error(`timed out waiting for ${what}`);
}

/** Statements sent through each database's pool while `fn` runs. */
async function queriesDuring(fn: () => Promise<unknown>): Promise<Record<'live' | 'sandbox', number>> {
  const counts = { live: 0, sandbox: 0 };
  const restore: (() => void)[] = [];
  for (const mode of ['live', 'sandbox'] as const) {
    const pool = env.db[mode].pool;
    const query = pool.query.bind(pool);
    pool.query = ((...args: Parameters<typeof query>) => {
      counts[mode]++;
      return query(...args);
    }) as typeof pool.query;
    restore.push(() => (pool.query = query));
  }
  try {
    await fn();
  } finally {
    for (const r of restore) r();
  }
  return counts;
}

const unknownKey = () =>
  `bk_test_${Array.from({ length: 32 }, () => 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 58)]).join('')}`;
async function get(url: string, key: string, ip = '192.0.2.200') {
  const res = await env.app.inject({ method: 'GET', url, remoteAddress: ip, headers: { 'x-api-key': key } });
  return { status: res.statusCode, body: res.json() };
}

describe('answers from memory', () => {
  it('a known key, its account and its business cost no round trip; the ceilings none either', async () => {
    await until('the key cache to load', () => env.s.accountCaches.keys.lookup(hashKey(a.test)).known);
    const b = await env.business(a.test);
    await upsertPlan(env.db.live.db, env.clock.now(), { key: 'small', name: 'Small', maxDocsPerMonth: 40, maxExpensesPerMonth: null });
    await setBusinessPlan(env.s, 'sandbox', b.id, 'small');
    // Both channels: the plan's change is heard on live, the business's on sandbox; a late one would reload after the fill.
    await Promise.all([env.s.invalidation.live.caughtUp(), env.s.invalidation.sandbox.caughtUp()]);
    expect((await get(`/v1/businesses/${b.id}`, a.test)).body.business.maxDocsPerMonth).toBe(40); // fills the caches
    let read: Awaited<ReturnType<typeof get>> | undefined;
    const counts = await queriesDuring(async () => (read = await get(`/v1/businesses/${b.id}`, a.test)));
    expect(read!.status).toBe(200);
    expect(read!.body.business.maxDocsPerMonth).toBe(40);
    // live: nothing (key, account limits, plan from memory; the rate limit in memory on this engine);
    // sandbox: only the view's own numbering read, not the business.
    expect(counts).toEqual({ live: 0, sandbox: 1 });
  });

  it('a change on another connection reaches the caches: limits, plan, scope, expiry, revocation, business standing', async () => {
    const b = await env.business(a.test);
    const view = async () => (await get(`/v1/businesses/${b.id}`, a.test)).body.business;
    expect(await view()).toMatchObject({ maxDocsPerMonth: null, approvalStatus: 'approved' });
    await setAccountLimits(env.db.live.db, a.id, { maxDocsPerMonth: 7 });
    await env.s.invalidation.live.caughtUp(); // the notification has arrived (as it does within a millisecond)
    expect((await view()).maxDocsPerMonth).toBe(7);
    await other.sandbox.query(`UPDATE businesses SET approval_status = 'suspended' WHERE id = $1`, [b.id]);
    await env.s.invalidation.sandbox.caughtUp();
    expect((await view()).approvalStatus).toBe('suspended');

    const k = await a.mint({ mode: 'test', scopes: ['businesses', 'documents'] });
    expect((await get('/v1/businesses', k.secret)).status).toBe(200);
    await other.live.query(`UPDATE api_keys SET scopes = '{documents}' WHERE id = $1`, [k.id]);
    await env.s.invalidation.live.caughtUp();
    expect((await get('/v1/businesses', k.secret)).status).toBe(403);
    await other.live.query(`UPDATE api_keys SET expires_at = '2026-02-01T00:00:00Z' WHERE id = $1`, [k.id]);
    await env.s.invalidation.live.caughtUp();
    expect((await get('/v1/keys', k.secret)).status).toBe(401);
    await other.live.query(`UPDATE api_keys SET expires_at = NULL, scopes = '{businesses}' WHERE id = $1`, [k.id]);
    await env.s.invalidation.live.caughtUp();
    expect((await get('/v1/businesses', k.secret)).status).toBe(200);
    await other.live.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [k.id]);
    await env.s.invalidation.live.caughtUp();
    expect((await get('/v1/keys', k.secret)).status).toBe(401);
    // The notified key is re-read in the background (until then the database answers, as above).
    await until("the revoked key's re-read", () => env.s.accountCaches.keys.lookup(hashKey(k.secret)).known);
    expect(env.s.accountCaches.keys.lookup(hashKey(k.secret))).toEqual({ known: true, key: undefined });
  });

  it('a write through this process answers once its own cache has heard of it', async () => {
    const b = await env.business(a.test);
    expect((await get(`/v1/businesses/${b.id}`, a.test)).status).toBe(200); // cached
    expect((await env.call('POST', `/v1/businesses/${b.id}/deactivate`, { key: a.test })).status).toBe(200);
    const write = await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { name: 'אחר' } });
    expect(write.status).toBe(403);
    expect((await env.call('POST', `/v1/businesses/${b.id}/reactivate`, { key: a.test })).status).toBe(200);
    expect((await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { name: 'אחר' } })).status).toBe(200);
  });

  it("another account's business is not found, cached or not", async () => {
    const b = await env.business(a.test);
    expect((await get(`/v1/businesses/${b.id}`, a.test)).status).toBe(200); // cached for its owner
    const stranger = await env.account();
    expect((await get(`/v1/businesses/${b.id}`, stranger.test)).status).toBe(404);
  });
});

describe('the failed-authentication throttle sheds bad keys only', () => {
  it('after 2,000 random keys from one address, a key minted a moment earlier answers 200 there, a bad key 429 without a lookup', async () => {
    const ip = '198.51.100.77';
    const before = await a.mint({ mode: 'test' }); // minted before the burst, never used from here
    const statuses = new Map<number, number>();
    for (let i = 0; i < 2000; i++) {
      const s = (await get('/v1/keys', unknownKey(), ip)).status;
      statuses.set(s, (statuses.get(s) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: 20, 429: 1980 });
    const fresh = await mintKey(env.db.live.db, env.clock.now(), { accountId: a.id, mode: 'test' }); // as the console or the CLI would
    await env.s.invalidation.live.caughtUp();
    expect((await get('/v1/keys', fresh.secret, ip)).status).toBe(200);
    expect((await get('/v1/keys', before.secret, ip)).status).toBe(200);
    expect((await get('/v1/keys', a.test, ip)).status).toBe(200);
    let refused = 0;
    const counts = await queriesDuring(async () => (refused = (await get('/v1/keys', unknownKey(), ip)).status));
    expect(refused).toBe(429);
    expect(counts).toEqual({ live: 0, sandbox: 0 });
    // A revoked key is a bad key too.
    await other.live.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [before.id]);
    await env.s.invalidation.live.caughtUp();
    expect((await get('/v1/keys', before.secret, ip)).status).toBe(429);
    // The window slides: the address's bad keys are 401 again.
    env.clock.advance(61_000);
    expect((await get('/v1/keys', unknownKey(), ip)).status).toBe(401);
  }, 120_000);
});

describe('a dropped LISTEN connection', () => {
  it('flushes the caches, reads through while down, and listens and loads again', async () => {
    const b = await env.business(a.test);
    expect((await get(`/v1/businesses/${b.id}`, a.test)).status).toBe(200);
    expect(env.s.businessCaches.sandbox.size).toBeGreaterThan(0);
    const listener = `pinkas cache ${process.pid}`;
    const killed = await other.live.query(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
      [listener],
    );
    expect(killed.rows).toEqual([{ ok: true }]);
    await until('the drop to be seen', () => !env.s.invalidation.live.listening);
    expect(env.s.accountCaches.keys.lookup(hashKey(a.test))).toEqual({ known: false });
    expect(env.s.accountCaches.keys.size).toBe(0);
    // The sandbox database has its own connection, still listening: its business cache stays.
    expect(env.s.invalidation.sandbox.listening).toBe(true);
    // While down, answers come from the database, changes included.
    expect((await get('/v1/keys', a.test)).status).toBe(200);
    const k = await a.mint({ mode: 'test' });
    await other.live.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [k.id]);
    // On a loaded machine the connection may already be back (its first retry is 100 ms away) and the
    // cache loaded before the revocation's notification arrives: wait for it then (no-op while down).
    await env.s.invalidation.live.caughtUp();
    expect((await get('/v1/keys', k.secret)).status).toBe(401);
    await until('the connection to be back', () => env.s.invalidation.live.listening && env.s.accountCaches.keys.lookup(hashKey(a.test)).known);
    await until("the revoked key's re-read", () => env.s.accountCaches.keys.lookup(hashKey(k.secret)).known);
    expect(env.s.accountCaches.keys.lookup(hashKey(k.secret))).toEqual({ known: true, key: undefined });
    expect((await get('/v1/keys', a.test)).status).toBe(200);
    const after = await other.live.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`, [
      listener,
    ]);
    expect(after.rows[0].n).toBe(1);
  }, 30_000);
});

describe('RecordCache', () => {
  const channel = { listening: true } as InvalidationChannel;

  it('does not keep a value read before a notification that arrived while it was read', async () => {
    const cache = new RecordCache<string>(channel, 10);
    let release!: (v: string) => void;
    const first = cache.get('x', () => new Promise((r) => (release = r)));
    cache.invalidate('x'); // the row changed while the read was under way
    release('stale');
    expect(await first).toBe('stale'); // true when read, so answered...
    expect(await cache.get('x', async () => 'fresh')).toBe('fresh'); // ...but not kept
    expect(await cache.get('x', async () => 'unused')).toBe('fresh');
  });

  it('keeps the most recently used entries within its bound, and reads through when not listening', async () => {
    const cache = new RecordCache<number>(channel, 2);
    await cache.get('a', async () => 1);
    await cache.get('b', async () => 2);
    await cache.get('a', async () => -1); // a used again
    await cache.get('c', async () => 3); // b goes
    expect(await cache.get('a', async () => -1)).toBe(1);
    expect(await cache.get('b', async () => 22)).toBe(22);
    const silent = new RecordCache<number>({ listening: false } as InvalidationChannel, 2);
    await silent.get('a', async () => 1);
    expect(await silent.get('a', async () => 2)).toBe(2);
    expect(silent.size).toBe(0);
  });
});
