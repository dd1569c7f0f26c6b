import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { decodeCursor, encodeCursor, pageOf } from '../../src/platform/http/cursor.ts';
import { newId } from '../../src/platform/ids.ts';

// Every list pages by an opaque (created time, id) position. The clock of the test env does not
// advance by itself: every row made here without env.clock.advance shares one millisecond, the
// case the `before` instant cannot page through.

let env: TestEnv;
let a: TestAccount;
let bid: string;
beforeAll(async () => {
  env = await createTestEnv({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } }); // the webhook endpoints below point at a loopback address
  a = await env.account();
  bid = (await env.business(a.test)).id;
});
afterAll(async () => env?.close());

type Row = { id: string; createdAt: string };

/**
 * Walks a list by `cursor` with a small page. `between` runs after each page (inserts during
 * paging). Returns the rows in the order answered and the number of pages.
 */
async function walk(path: string, field: string, opts: { size?: string; key?: string; between?: (page: number) => Promise<void> } = {}) {
  const seen: Row[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const url: string = `${path}${sep}${opts.size ?? 'take=3'}${cursor ? `&cursor=${cursor}` : ''}`;
    const res = await env.call('GET', url, { key: opts.key ?? a.test });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toHaveProperty('nextCursor');
    seen.push(...(res.body[field] as Row[]));
    cursor = res.body.nextCursor;
    pages++;
    if (cursor !== null) expect(res.body[field].length).toBeGreaterThan(0);
    await opts.between?.(pages);
  } while (cursor !== null && pages < 100);
  return { rows: seen, pages };
}

/** The order every list promises: created time, then id, newest first. */
const inOrder = (rows: Row[]) =>
  [...rows].sort((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? 1 : -1) : x.createdAt < y.createdAt ? 1 : -1)).map((r) => r.id);

function expectEachOnceInOrder(rows: Row[], expectedIds: string[]) {
  const ids = rows.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual(inOrder(rows));
  expect([...ids].sort()).toEqual([...expectedIds].sort());
}

describe('cursor encoding (pure)', () => {
  it('round-trips a position and names the parameter when the text is not one', () => {
    const at = { createdAt: '2026-03-01T08:00:00.123456Z', id: 'doc_01abc' };
    expect(decodeCursor('documents', encodeCursor('documents', at))).toEqual(at);
    const bad = (list: string, raw: string) => {
      try {
        decodeCursor(list, raw);
      } catch (e) {
        return { status: (e as { status: number }).status, reason: (e as { reason: string }).reason, message: (e as Error).message };
      }
      throw new Error(`accepted ${raw}`);
    };
    const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
    for (const raw of [
      'not a cursor',
      '%%%',
      b64('plain text'),
      b64([1, 2]),
      b64({ l: 'documents', t: '2026-03-01T08:00:00Z', i: 'doc_1' }), // not to the microsecond
      b64({ l: 'documents', t: '2026-13-45T08:00:00.000000Z', i: 'doc_1' }),
      b64({ l: 'documents', t: '2026-03-01T08:00:00.000000Z', i: "x' OR 1=1 --" }),
      b64({ l: 'documents', t: '2026-03-01T08:00:00.000000Z' }),
      'A'.repeat(401),
    ]) {
      const e = bad('documents', raw);
      expect([e.status, e.reason]).toEqual([400, 'validation']);
      expect(e.message).toMatch(/^querystring\.cursor: /);
    }
    expect(bad('documents', encodeCursor('expenses', at)).message).toMatch(/another list/);
  });

  it('a page carries a cursor only when another row follows', () => {
    const rows = [1, 2, 3].map((n) => ({ createdAt: `2026-03-01T08:00:00.00000${n}Z`, id: `x_${n}` }));
    expect(pageOf('l', rows, 3, (r) => r).nextCursor).toBeNull();
    const two = pageOf('l', rows, 2, (r) => r);
    expect(two.page).toHaveLength(2);
    expect(decodeCursor('l', two.nextCursor!)).toEqual(rows[1]);
    expect(pageOf('l', [], 2, (r: Row) => r)).toEqual({ page: [], nextCursor: null });
  });
});

describe('documents', () => {
  const make = async (n: number, text = 'שורה') => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await env.call('POST', `/v1/businesses/${bid}/documents`, {
        key: a.test,
        body: { docType: 305, party: { name: `לקוח ${i}` }, lines: [{ description: `${text} ${i}`, quantity: 1, unitPriceExVat: 1000 }] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push(res.body.document.id);
    }
    return ids;
  };

  it('pages every row of one millisecond exactly once, in order; `before` cannot', async () => {
    const ids = await make(11);
    const { rows, pages } = await walk(`/v1/businesses/${bid}/documents`, 'documents');
    expect(new Set(rows.map((r) => r.createdAt)).size).toBe(1); // one millisecond for all
    expectEachOnceInOrder(rows, ids);
    expect(pages).toBe(4);
    // The time cursor drops the rest of the millisecond: why `cursor` is the way to page.
    const before = await env.call('GET', `/v1/businesses/${bid}/documents?take=3&before=${rows[2].createdAt}`, { key: a.test });
    expect(before.body.documents).toHaveLength(0);
    // skip/take still answer (and a cursor with filters and search pages the same way).
    const skipped = await env.call('GET', `/v1/businesses/${bid}/documents?take=2&skip=3`, { key: a.test });
    expect(skipped.body.documents.map((d: Row) => d.id)).toEqual(rows.slice(3, 5).map((r) => r.id));
    const found = await walk(`/v1/businesses/${bid}/documents?q=${encodeURIComponent('שורה')}&status=draft&counts=1`, 'documents', { size: 'take=4' });
    expect(found.rows.map((r) => r.id)).toEqual(rows.map((r) => r.id));
  });

  it('rows inserted while paging are newer: never on a later page; nothing repeats or is skipped', async () => {
    const b = (await env.business(a.test)).id;
    env.clock.advance(1000);
    const path = `/v1/businesses/${b}/documents`;
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await env.call('POST', path, {
        key: a.test,
        body: { docType: 305, party: { name: 'ל' }, lines: [{ description: 'x', quantity: 1, unitPriceExVat: 1 }] },
      });
      ids.push(res.body.document.id);
    }
    const added: string[] = [];
    const { rows } = await walk(path, 'documents', {
      between: async () => {
        env.clock.advance(1);
        const res = await env.call('POST', path, {
          key: a.test,
          body: { docType: 305, party: { name: 'ח' }, lines: [{ description: 'y', quantity: 1, unitPriceExVat: 1 }] },
        });
        added.push(res.body.document.id);
      },
    });
    expectEachOnceInOrder(rows, ids);
    expect(rows.some((r) => added.includes(r.id))).toBe(false);
    const counts = await env.call('GET', `${path}?counts=1&take=1`, { key: a.test });
    expect(counts.body.counts.total).toBe(ids.length + added.length);
  });

  it('a malformed cursor, or one of another list, is 400 validation naming the parameter', async () => {
    const party = await env.call('GET', `/v1/businesses/${bid}/parties?take=1`, { key: a.test });
    const foreign = party.body.nextCursor ?? encodeCursor('parties', { createdAt: '2026-03-01T08:00:00.000000Z', id: 'pty_1' });
    for (const cursor of ['garbage!', 'Z2FyYmFnZQ', foreign]) {
      const res = await env.call('GET', `/v1/businesses/${bid}/documents?cursor=${encodeURIComponent(cursor)}`, { key: a.test });
      expect([res.status, res.body.reason], JSON.stringify(res.body)).toEqual([400, 'validation']);
      expect(res.body.error).toMatch(/cursor/);
    }
  });
});

describe('every other list', () => {
  it('expenses', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await env.call('POST', `/v1/businesses/${bid}/expenses`, {
        key: a.test,
        body: {
          supplier: { name: `ספק ${i}` },
          supplierDocNumber: String(i + 1),
          supplierDocDate: '2026-02-01',
          categoryKey: 'office',
          amountExVat: 1000,
          vatAmount: 180,
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push(res.body.expense.id);
    }
    const added: string[] = [];
    const { rows } = await walk(`/v1/businesses/${bid}/expenses`, 'expenses', {
      size: 'take=2',
      between: async () => {
        env.clock.advance(1);
        const res = await env.call('POST', `/v1/businesses/${bid}/expenses`, {
          key: a.test,
          body: { supplier: { name: 'חדש' }, categoryKey: 'office', amountExVat: 1, vatAmount: 0 },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        added.push(res.body.expense.id);
      },
    });
    expectEachOnceInOrder(rows, ids);
    expect(rows.some((r) => added.includes(r.id))).toBe(false);
    const bad = await env.call(
      'GET',
      `/v1/businesses/${bid}/expenses?cursor=${encodeCursor('documents', { createdAt: rows[0].createdAt.replace('Z', '000Z'), id: rows[0].id })}`,
      { key: a.test },
    );
    expect([bad.status, bad.body.reason]).toEqual([400, 'validation']);
  });

  it('parties (and the kind filter)', async () => {
    const b = (await env.business(a.test)).id;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await env.call('POST', `/v1/businesses/${b}/parties`, { key: a.test, body: { name: `צד ${i}`, kind: i % 2 ? 'supplier' : 'customer' } });
      ids.push(res.body.party.id);
    }
    expectEachOnceInOrder((await walk(`/v1/businesses/${b}/parties`, 'parties', { size: 'take=2' })).rows, ids);
    const suppliers = await walk(`/v1/businesses/${b}/parties?kind=supplier`, 'parties', { size: 'take=1' });
    expect(suppliers.rows.map((r) => r.id).sort()).toEqual(ids.filter((_, i) => i % 2).sort());
    expect(suppliers.pages).toBe(3);
  });

  it('webhook endpoints and their deliveries (`before`/`next` kept)', async () => {
    const acct = await env.account();
    const hooks: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await env.call('POST', '/v1/webhooks', { key: acct.test, body: { url: `https://127.0.0.1:9/hook${i}`, events: ['document.issued'] } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      hooks.push(res.body.webhook.id);
    }
    expectEachOnceInOrder((await walk('/v1/webhooks', 'webhooks', { key: acct.test, size: 'take=2' })).rows, hooks);

    // Deliveries of one millisecond, written as the dispatcher writes them (the id starts with created_at).
    const at = env.clock.now();
    const deliveries = Array.from({ length: 8 }, () => newId('del', at.getTime()));
    const values = deliveries.map((id) => `('${id}', '${hooks[0]}', 'document.issued', '{}', 'delivered', '${at.toISOString()}', '${at.toISOString()}')`);
    await env.sql('sandbox', `INSERT INTO webhook_deliveries(id, endpoint_id, event, payload, status, created_at, delivered_at) VALUES ${values.join(', ')}`);
    const path = `/v1/webhooks/${hooks[0]}/deliveries`;
    const walked = await walk(path, 'deliveries', { key: acct.test });
    expectEachOnceInOrder(walked.rows, deliveries);
    const first = await env.call('GET', `${path}?take=3`, { key: acct.test });
    const older = await env.call('GET', `${path}?take=3&before=${first.body.next}`, { key: acct.test });
    expect([...first.body.deliveries, ...older.body.deliveries].map((d: Row) => d.id)).toEqual(walked.rows.slice(0, 6).map((r) => r.id));
  });

  it('export runs', async () => {
    const at = env.clock.now();
    const runs = Array.from({ length: 5 }, () => newId('exr', at.getTime()));
    const values = runs.map(
      (id, i) =>
        `('${id}', '${bid}', '2026-01-01', '2026-01-31', 'running', '${at.toISOString()}', '${at.toISOString()}', 'DIR${i}', '000000000000001', '${at.toISOString()}')`,
    );
    await env.sql(
      'sandbox',
      `INSERT INTO export_runs(id, business_id, from_date, to_date, status, cut_off_at, production_at, directory, primary_id, created_at) VALUES ${values.join(', ')}`,
    );
    const { rows, pages } = await walk(`/v1/businesses/${bid}/exports`, 'exportRuns', { size: 'limit=2' });
    expectEachOnceInOrder(rows, runs);
    expect(pages).toBe(3);
  });

  it('backups', async () => {
    const b = (await env.business(a.test)).id;
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await env.call('POST', `/v1/businesses/${b}/backups`, { key: a.test });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      made.push(res.body.backup.id);
    }
    const backups = (await walk(`/v1/businesses/${b}/backups`, 'backups', { size: 'take=3' })).rows;
    expect(new Set(backups.map((r) => r.createdAt)).size).toBe(1);
    expectEachOnceInOrder(backups, made);
  });
});
