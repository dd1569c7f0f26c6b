import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { recordEvent, type OutboxEvent } from '../../src/platform/outbox.ts';
import type { EventName } from '../../src/platform/catalog/events.ts';
import type { Mode } from '../../src/platform/db/engine.ts';
import { pruneEvents } from '../../src/events/retention.ts';

let env: TestEnv;
let a: TestAccount;
let other: TestAccount;
let b1: { id: string };
let b2: { id: string };

// The list reads the outbox as it is: these tests record synthetic data under real names (hence the cast).
async function emit(mode: Mode, accountId: string, { businessId, event, n }: { businessId: string | null; event: EventName; n: number }) {
  await env.db[mode].db.transaction((tx) => recordEvent(tx, env.clock.now(), { event, accountId, businessId, data: { n } } as unknown as OutboxEvent));
}

const list = async (key: string, query = '') => {
  const res = await env.call('GET', `/v1/events${query}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    events: { id: string; type: string; businessId: string | null; data: { n?: number }; createdAt: string; mode: string }[];
    nextCursor: string | null;
  };
};
const ns = (events: { data: { n?: number } }[]) => events.map((e) => e.data.n);

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  other = await env.account();
  b1 = await env.business(a.test);
  b2 = await env.business(a.test, { name: 'עסק שני' });
  // 1..6 a minute apart in the sandbox, two of them in one millisecond (the cursor's tie on created_at).
  await emit('sandbox', a.id, { businessId: b1.id, event: 'document.issued', n: 1 });
  env.clock.advance(60_000);
  await emit('sandbox', a.id, { businessId: b2.id, event: 'expense.recorded', n: 2 });
  env.clock.advance(60_000);
  await emit('sandbox', a.id, { businessId: b1.id, event: 'expense.recorded', n: 3 });
  await emit('sandbox', a.id, { businessId: null, event: 'business.status_changed', n: 4 });
  env.clock.advance(60_000);
  await emit('sandbox', a.id, { businessId: b2.id, event: 'document.issued', n: 5 });
  env.clock.advance(60_000);
  await emit('sandbox', a.id, { businessId: b1.id, event: 'export.completed', n: 6 });
  await emit('sandbox', other.id, { businessId: null, event: 'document.issued', n: 100 });
  await emit('live', a.id, { businessId: null, event: 'document.issued', n: 200 });
});
afterAll(async () => {
  await env?.close();
});

describe('GET /v1/events', () => {
  it("answers the key's account and mode only, newest first, with the envelope's data", async () => {
    const page = await list(a.test);
    // Events 3 and 4 share their millisecond: the id breaks the tie, newest first either way.
    expect(ns(page.events).filter((n) => n !== 3 && n !== 4)).toEqual([6, 5, 2, 1]);
    expect(ns(page.events).slice(2, 4).sort()).toEqual([3, 4]);
    expect(page.nextCursor).toBeNull();
    expect(page.events[0]).toMatchObject({ type: 'export.completed', mode: 'sandbox', businessId: b1.id, createdAt: '2026-03-01T08:04:00.000Z' });
    expect(page.events[0].id).toMatch(/^evt_/);
    expect(ns((await list(a.live)).events)).toEqual([200]);
    expect(ns((await list(other.test)).events)).toEqual([100]);
  });

  it('filters by type (repeated or comma-separated), business and time', async () => {
    expect(ns((await list(a.test, '?type=document.issued')).events)).toEqual([5, 1]);
    expect(ns((await list(a.test, '?type=document.issued&type=export.completed')).events)).toEqual([6, 5, 1]);
    expect(ns((await list(a.test, '?type=document.issued,export.completed')).events)).toEqual([6, 5, 1]);
    expect(ns((await list(a.test, `?businessId=${b2.id}`)).events)).toEqual([5, 2]);
    expect(ns((await list(a.test, `?businessId=${b1.id}&type=expense.recorded`)).events)).toEqual([3]);
    const window = '?createdAfter=2026-03-01T08:01:00.000Z&createdBefore=2026-03-01T08:04:00.000Z';
    expect(ns((await list(a.test, window)).events).sort()).toEqual([3, 4, 5]);
    // Another account's business filters to nothing (never to its events).
    const theirs = await env.business(other.test);
    expect((await list(a.test, `?businessId=${theirs.id}`)).events).toEqual([]);
  });

  it('pages with cursor, no row skipped or repeated across the tie', async () => {
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list(a.test, `?take=1${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...ns(page.events).map(Number));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(6);
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6]);
    const two = await list(a.test, '?take=2&type=document.issued,expense.recorded');
    expect(ns(two.events)).toEqual([5, 3]);
    expect(ns((await list(a.test, `?take=2&type=document.issued,expense.recorded&cursor=${two.nextCursor}`)).events)).toEqual([2, 1]);
  });

  it('refuses bad input with the field named', async () => {
    const bad = async (query: string, field: string) => {
      const res = await env.call('GET', `/v1/events${query}`, { key: a.test });
      expect(res.status, query).toBe(400);
      expect(res.body.reason).toBe('validation');
      expect(res.body.error).toContain(field);
    };
    await bad('?type=document.printed', 'querystring.type');
    await bad('?createdAfter=yesterday', 'querystring.createdAfter');
    await bad('?take=0', 'querystring.take');
    await bad('?cursor=abc', 'querystring.cursor');
    const webhooks = await env.call('GET', '/v1/webhooks?take=1', { key: a.test });
    expect(webhooks.status).toBe(200);
    await bad('?what=1', 'querystring.what');
  });

  it('needs the businesses scope, like the webhooks', async () => {
    const docsOnly = await a.mint({ mode: 'test', scopes: ['documents'] });
    const res = await env.call('GET', '/v1/events', { key: docsOnly.secret });
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('forbidden');
  });
});

describe('GET /v1/events/{id}', () => {
  it("reads one of the account's events; another account's or mode's is not found", async () => {
    const [newest] = (await list(a.test)).events;
    const res = await env.call('GET', `/v1/events/${newest.id}`, { key: a.test });
    expect(res.status).toBe(200);
    expect(res.body.event).toEqual(newest);
    expect((await env.call('GET', `/v1/events/${newest.id}`, { key: other.test })).body.reason).toBe('not_found');
    expect((await env.call('GET', `/v1/events/${newest.id}`, { key: a.live })).status).toBe(404);
    expect((await env.call('GET', '/v1/events/evt_nope', { key: a.test })).status).toBe(404);
  });
});

describe('retention', () => {
  it('prunes events older than 30 days once fanned out; an event not yet handed to webhooks stays', async () => {
    const before = (await list(a.test)).events.length;
    await env.sql('sandbox', `UPDATE outbox_events SET dispatched_at = created_at WHERE data->>'n' IN ('1', '2')`);
    env.clock.advance(30 * 86_400_000 - 3 * 60_000);
    // Exactly 30 days after event 2: 1 is older, 2 is not yet.
    expect(await pruneEvents(env.s)).toEqual({ live: 0, sandbox: 1 });
    env.clock.advance(365 * 86_400_000);
    expect(await pruneEvents(env.s)).toEqual({ live: 0, sandbox: 1 });
    const left = ns((await list(a.test)).events);
    expect(left).toHaveLength(before - 2);
    expect(left).not.toContain(1);
    expect(left).not.toContain(2);
    expect(ns((await list(a.live)).events)).toEqual([200]);
  });
});
