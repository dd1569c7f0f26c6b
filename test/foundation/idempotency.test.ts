import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type CallResult, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { setWebhookResolver } from '../../src/webhooks/runtime.ts';
import { KEEP_MS, LEASE_MS } from '../../src/platform/http/idempotency.ts';
import { FakeChatCompletions } from '../expenses/fake-openai.ts';
import { dataUri, multipart, png } from '../expenses/fixtures.ts';

// Every create behind the generic Idempotency-Key layer (src/idempotent-creates.ts): same key and
// body answer the same resource again, another body is 409, 8 at once make one, a failure does not
// burn the key, accounts do not collide, keys expire after KEEP_MS (injected clock, no sleeping).
let env: TestEnv;
let fake: FakeChatCompletions;
let a: TestAccount;
let b: TestAccount;
let keyA: string;
let keyB: string;
let bidA: string;
let bidB: string;
let n = 0;
const fresh = (p = 'k') => `${p}-${++n}-${Date.now()}`;
const SEAL_KEY = createHash('sha256').update('idempotency test seal key').digest('hex');

const extraction = {
  vendorName: 'ספק',
  vendorTaxId: TAX_IDS.company2,
  documentNumber: '1',
  documentDate: '2026-02-27',
  amountExVat: 100,
  vatAmount: 18,
  amountIncVat: 118,
};

beforeAll(async () => {
  fake = await FakeChatCompletions.start();
  env = await createTestEnv({
    env: { OCR_BASE_URL: fake.baseUrl, OCR_API_KEY: 'sk-test-1', OCR_MODEL: 'vision-test-1', OCR_TIMEOUT_MS: '2000', BACKUP_SEAL_KEY: SEAL_KEY },
  });
  setWebhookResolver(env.s, async (host) => {
    if (host === 'hooks.example.com') return ['93.184.216.34'];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  });
  const scopes = ['businesses', 'documents', 'expenses', 'export', 'ocr'];
  a = await env.account({ ocr: true });
  b = await env.account({ ocr: true });
  keyA = (await a.mint({ mode: 'test', scopes })).secret;
  keyB = (await b.mint({ mode: 'test', scopes })).secret;
  bidA = (await env.business(keyA)).id;
  bidB = (await env.business(keyB)).id;
});
afterAll(async () => {
  await env?.close();
  await fake?.close();
});

const count = async (text: string) => Number((await env.sql<{ n: number }>('sandbox', text))[0].n);

async function issued(key: string, bid: string): Promise<string> {
  const d = await env.call('POST', `/v1/businesses/${bid}/documents`, {
    key,
    body: { docType: 305, lines: [{ description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000 }] },
  });
  expect(d.status, JSON.stringify(d.body)).toBe(201);
  const i = await env.call('POST', `/v1/businesses/${bid}/documents/${d.body.document.id}/issue`, { key });
  expect(i.status, JSON.stringify(i.body)).toBe(201);
  return d.body.document.id;
}

interface Case {
  name: string;
  /** Sends variant `v` of the request (same v, same request). */
  send(key: string, bid: string, idem: string, v: number): Promise<CallResult>;
  /** The id of the resource an answer names. */
  id(r: CallResult): string;
  /** How many such resources the business (or account) holds. */
  count(bid: string, accountId: string): Promise<number>;
  /** Set before each request that reaches the handler once (the OCR answer of a scan). */
  before?(): void;
  /** The answer of a first call that created (find-or-create answers 201 then). */
  status?: number;
}

const json = (method: string, url: (bid: string) => string, body: (v: number) => unknown) => (key: string, bid: string, idem: string, v: number) =>
  env.call(method, url(bid), { key, body: body(v), headers: { 'idempotency-key': idem } });

// Credit notes need a fresh issued document per attempt; the case keeps the one of the current test.
let creditTarget = '';

const cases: Case[] = [
  {
    name: 'POST /businesses',
    send: json(
      'POST',
      () => '/v1/businesses',
      (v) => ({ name: `עסק ${v}`, taxId: TAX_IDS.company, dealerType: 'company' }),
    ),
    id: (r) => r.body.business.id,
    count: (_bid, acc) => count(`SELECT count(*)::int AS n FROM businesses WHERE account_id = '${acc}'`),
  },
  {
    name: 'POST /businesses/{bid}/parties',
    send: json(
      'POST',
      (bid) => `/v1/businesses/${bid}/parties`,
      (v) => ({ name: `לקוח ${v}` }),
    ),
    id: (r) => r.body.party.id,
    count: (bid) => count(`SELECT count(*)::int AS n FROM parties WHERE business_id = '${bid}'`),
  },
  {
    name: 'POST /businesses/{bid}/parties/find-or-create',
    send: json(
      'POST',
      (bid) => `/v1/businesses/${bid}/parties/find-or-create`,
      (v) => ({ name: `מוצא ${v}-${n}` }),
    ),
    id: (r) => r.body.party.id,
    count: (bid) => count(`SELECT count(*)::int AS n FROM parties WHERE business_id = '${bid}'`),
  },
  {
    name: 'POST /businesses/{bid}/documents/{id}/credit-note',
    send: json(
      'POST',
      (bid) => `/v1/businesses/${bid}/documents/${creditTarget}/credit-note`,
      (v) => ({ reason: `החזרה ${v}` }),
    ),
    id: (r) => r.body.document.id,
    count: (bid) => count(`SELECT count(*)::int AS n FROM documents WHERE business_id = '${bid}' AND doc_type = 330`),
  },
  {
    name: 'POST /webhooks',
    send: json(
      'POST',
      () => '/v1/webhooks',
      (v) => ({ url: `https://hooks.example.com/p${v}` }),
    ),
    id: (r) => r.body.webhook.id,
    count: (_bid, acc) => count(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE account_id = '${acc}'`),
  },
  {
    name: 'POST /businesses/{bid}/expenses/upload (multipart)',
    send: async (key, bid, idem, v) => {
      const m = multipart('file', `r${v}.png`, { mime: 'image/png', bytes: await png(40 + v, 30 + n, '#3c3') });
      return env.call('POST', `/v1/businesses/${bid}/expenses/upload`, { key, payload: m.payload, headers: { ...m.headers, 'idempotency-key': idem } });
    },
    id: (r) => r.body.expense.id,
    count: (bid) => count(`SELECT count(*)::int AS n FROM expenses WHERE business_id = '${bid}'`),
  },
  {
    name: 'POST /businesses/{bid}/expenses/scan (JSON)',
    send: async (key, bid, idem, v) =>
      env.call('POST', `/v1/businesses/${bid}/expenses/scan`, {
        key,
        body: { file: dataUri('image/png', await png(50 + v, 40 + n, '#33c')) },
        headers: { 'idempotency-key': idem },
      }),
    before: () => fake.answer({ kind: 'json', content: extraction }),
    id: (r) => r.body.expense.id,
    count: (bid) => count(`SELECT count(*)::int AS n FROM expenses WHERE business_id = '${bid}'`),
  },
  {
    name: 'POST /businesses/{bid}/exports/openfrmt',
    send: json(
      'POST',
      (bid) => `/v1/businesses/${bid}/exports/openfrmt`,
      (v) => ({ from: '2026-01-01', to: `2026-02-${String(10 + v).padStart(2, '0')}` }),
    ),
    // One run per business and wall-clock minute (its production time): a minute apart.
    before: () => env.clock.advance(60_000),
    id: (r) => r.body.exportRun.id,
    count: (bid) => count(`SELECT count(*)::int AS n FROM export_runs WHERE business_id = '${bid}'`),
  },
  {
    name: 'POST /businesses/{bid}/backups',
    send: async (key, bid, idem, v) =>
      env.call('POST', `/v1/businesses/${bid}/backups`, { key, headers: { 'idempotency-key': idem }, ...(v === 1 ? {} : { body: { v } }) }),
    id: (r) => r.body.backup.id,
    count: (bid) => count(`SELECT count(*)::int AS n FROM backups WHERE business_id = '${bid}'`),
  },
];

describe.each(cases)('$name', (c) => {
  const prepare = async (key = keyA, bid = bidA) => {
    if (c.name.includes('credit-note')) creditTarget = await issued(key, bid);
  };

  it('same key and body: the same resource again, deduped and Idempotent-Replayed; another body: 409', async () => {
    await prepare();
    const idem = fresh();
    const before = await c.count(bidA, a.id);
    c.before?.();
    const first = await c.send(keyA, bidA, idem, 1);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.deduped ?? false).toBe(false);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await c.send(keyA, bidA, idem, 1);
    expect(again.status).toBe(201);
    expect(c.id(again)).toBe(c.id(first));
    expect(again.body).toEqual({ ...first.body, deduped: true });
    expect(again.headers['idempotent-replayed']).toBe('true');
    const other = await c.send(keyA, bidA, idem, 2);
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ reason: 'conflict', error: 'Idempotency-Key reused with a different body' });
    expect(await c.count(bidA, a.id)).toBe(before + 1);
  });

  it('8 requests at once with one key make exactly one resource; the others replay it or answer 409 in progress', async () => {
    await prepare();
    const idem = fresh('race');
    const before = await c.count(bidA, a.id);
    c.before?.();
    const answers = await Promise.all(Array.from({ length: 8 }, () => c.send(keyA, bidA, idem, 1)));
    expect(await c.count(bidA, a.id)).toBe(before + 1);
    const created = answers.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map(c.id)).size).toBe(1);
    for (const r of answers.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.error).toMatch(/in progress/);
      expect(r.headers['retry-after']).toBe('1');
    }
    // Settled: every retry now replays the one answer.
    const later = await c.send(keyA, bidA, idem, 1);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(c.id(later)).toBe(c.id(created[0]));
  });

  it("another account's same key is its own", async () => {
    const idem = fresh('shared');
    await prepare();
    c.before?.();
    const mine = await c.send(keyA, bidA, idem, 1);
    await prepare(keyB, bidB);
    c.before?.();
    const theirs = await c.send(keyB, bidB, idem, 1);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(c.id(theirs)).not.toBe(c.id(mine));
  });
});

describe('a failed request does not burn the key', () => {
  it('4xx from the handler (tax id checksum, unknown webhook host, credit note of a draft), then the retry runs', async () => {
    const idem = fresh('fail');
    const bad = await env.call('POST', '/v1/businesses', {
      key: keyA,
      body: { name: 'x', taxId: '123456789', dealerType: 'company' },
      headers: { 'idempotency-key': idem },
    });
    expect(bad.status).toBe(400);
    const good = await env.call('POST', '/v1/businesses', {
      key: keyA,
      body: { name: 'x', taxId: TAX_IDS.company, dealerType: 'company' },
      headers: { 'idempotency-key': idem },
    });
    expect(good.status).toBe(201);
    expect(good.headers['idempotent-replayed']).toBeUndefined();

    const hook = fresh('fail');
    expect(
      (await env.call('POST', '/v1/webhooks', { key: keyA, body: { url: 'https://nowhere.example.com/x' }, headers: { 'idempotency-key': hook } })).status,
    ).toBe(400);
    expect(
      (await env.call('POST', '/v1/webhooks', { key: keyA, body: { url: 'https://nowhere.example.com/x' }, headers: { 'idempotency-key': hook } })).status,
    ).toBe(400);

    const d = await env.call('POST', `/v1/businesses/${bidA}/documents`, {
      key: keyA,
      body: { docType: 305, lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100 }] },
    });
    const credit = fresh('fail');
    const credit1 = await env.call('POST', `/v1/businesses/${bidA}/documents/${d.body.document.id}/credit-note`, {
      key: keyA,
      body: {},
      headers: { 'idempotency-key': credit },
    });
    expect(credit1.status).toBe(409);
    await env.call('POST', `/v1/businesses/${bidA}/documents/${d.body.document.id}/issue`, { key: keyA });
    const credit2 = await env.call('POST', `/v1/businesses/${bidA}/documents/${d.body.document.id}/credit-note`, {
      key: keyA,
      body: {},
      headers: { 'idempotency-key': credit },
    });
    expect(credit2.status, JSON.stringify(credit2.body)).toBe(201);
    expect(await count(`SELECT count(*)::int AS n FROM idempotency_keys WHERE idem_key = '${credit}' AND state = 'done'`)).toBe(1);
  });

  it('5xx (the OCR provider failed), then the retry runs the scan', async () => {
    const idem = fresh('ocr');
    const file = dataUri('image/png', await png(77, 55, '#c3c'));
    fake.answer({ kind: 'status', status: 500 });
    const failed = await env.call('POST', `/v1/businesses/${bidA}/expenses/scan`, { key: keyA, body: { file }, headers: { 'idempotency-key': idem } });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    fake.answer({ kind: 'json', content: extraction });
    const retried = await env.call('POST', `/v1/businesses/${bidA}/expenses/scan`, { key: keyA, body: { file }, headers: { 'idempotency-key': idem } });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a validation failure never claims the key', async () => {
    const idem = fresh('v');
    expect((await env.call('POST', `/v1/businesses/${bidA}/parties`, { key: keyA, body: {}, headers: { 'idempotency-key': idem } })).status).toBe(400);
    expect(await count(`SELECT count(*)::int AS n FROM idempotency_keys WHERE idem_key = '${idem}'`)).toBe(0);
  });
});

describe('scope, shape and lifetime of a key', () => {
  const party = (idem: string, name: string, key = keyA, bid = bidA) =>
    env.call('POST', `/v1/businesses/${bid}/parties`, { key, body: { name }, headers: { 'idempotency-key': idem } });

  it('the same key on another route (or another business) is 409 naming the first request', async () => {
    const idem = fresh('route');
    expect((await party(idem, 'א')).status).toBe(201);
    const hook = await env.call('POST', '/v1/webhooks', { key: keyA, body: { url: 'https://hooks.example.com/r' }, headers: { 'idempotency-key': idem } });
    expect(hook.status).toBe(409);
    expect(hook.body.error).toContain(`POST /v1/businesses/${bidA}/parties`);
    const bid2 = (await env.business(keyA)).id;
    expect((await party(idem, 'א', keyA, bid2)).status).toBe(409);
  });

  it('live and sandbox keep their keys apart', async () => {
    const idem = fresh('mode');
    const body = { name: 'עסק', taxId: TAX_IDS.company, dealerType: 'company' };
    const live = await env.call('POST', '/v1/businesses', { key: a.live, body, headers: { 'idempotency-key': idem } });
    const sandbox = await env.call('POST', '/v1/businesses', { key: a.test, body, headers: { 'idempotency-key': idem } });
    expect([live.status, sandbox.status]).toEqual([201, 201]);
    expect(sandbox.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a malformed key is 400; no key means no idempotency', async () => {
    for (const bad of ['', ' lead', 'x'.repeat(201), 'תו']) {
      const r = await env.call('POST', `/v1/businesses/${bidA}/parties`, { key: keyA, body: { name: 'x' }, headers: { 'idempotency-key': bad } });
      expect(r.status, bad).toBe(400);
      expect(r.body.error).toContain('headers.idempotency-key');
    }
    const one = await env.call('POST', `/v1/businesses/${bidA}/parties`, { key: keyA, body: { name: 'same' } });
    const two = await env.call('POST', `/v1/businesses/${bidA}/parties`, { key: keyA, body: { name: 'same' } });
    expect(one.body.party.id).not.toBe(two.body.party.id);
  });

  it('a key is kept 24 hours, then a request runs anew and expired keys are purged', async () => {
    const idem = fresh('exp');
    const first = await party(idem, 'ישן');
    env.clock.advance(KEEP_MS - 1000);
    expect((await party(idem, 'ישן')).body.party.id).toBe(first.body.party.id);
    expect((await party(idem, 'חדש')).status).toBe(409);
    env.clock.advance(1000);
    const reused = await party(idem, 'חדש');
    expect(reused.status).toBe(201);
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
    // Everything older than a day is gone after the next stored answer.
    env.clock.advance(KEEP_MS + 1);
    await party(fresh('exp'), 'אחר');
    expect(await count(`SELECT count(*)::int AS n FROM idempotency_keys WHERE expires_at <= '${env.clock.now().toISOString()}'`)).toBe(0);
  });

  it('an answer never stored (process died after the create) blocks the key for the lease, then a retry runs again', async () => {
    const idem = fresh('crash');
    const first = await party(idem, 'נפל');
    // As if the process died between the commit and storing the answer: the claim is left pending.
    await env.sql('sandbox', `UPDATE idempotency_keys SET state = 'pending', response_status = NULL, response_body = NULL WHERE idem_key = '${idem}'`);
    const during = await party(idem, 'נפל');
    expect(during.status).toBe(409);
    expect(during.body.error).toMatch(/in progress/);
    env.clock.advance(LEASE_MS + 1);
    const after = await party(idem, 'נפל');
    expect(after.status).toBe(201);
    // The documented cost of that window: the create ran twice.
    expect(after.body.party.id).not.toBe(first.body.party.id);
    expect((await party(idem, 'נפל')).headers['idempotent-replayed']).toBe('true');
  });
});

describe('document and expense drafts keep their own key (externalRef)', () => {
  it('a draft key does not collide with the generic layer, and a draft retry still answers deduped', async () => {
    const idem = fresh('draft');
    const body = { docType: 305, lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100 }] };
    const d1 = await env.call('POST', `/v1/businesses/${bidA}/documents`, { key: keyA, body, headers: { 'idempotency-key': idem } });
    const d2 = await env.call('POST', `/v1/businesses/${bidA}/documents`, { key: keyA, body, headers: { 'idempotency-key': idem } });
    expect(d2.body).toMatchObject({ deduped: true, document: { id: d1.body.document.id, externalRef: idem } });
    expect(d2.headers['idempotent-replayed']).toBe('true');
    const e1 = await env.call('POST', `/v1/businesses/${bidA}/expenses`, { key: keyA, body: { note: 'ספק' }, headers: { 'idempotency-key': idem } });
    const e2 = await env.call('POST', `/v1/businesses/${bidA}/expenses`, { key: keyA, body: { note: 'ספק' }, headers: { 'idempotency-key': idem } });
    expect(e2.body).toMatchObject({ deduped: true, expense: { id: e1.body.expense.id } });
    expect(e2.headers['idempotent-replayed']).toBe('true');
    expect((await party(idem)).status).toBe(201);
    expect(await count(`SELECT count(*)::int AS n FROM idempotency_keys WHERE idem_key = '${idem}'`)).toBe(1);
  });
  const party = (idem: string) => env.call('POST', `/v1/businesses/${bidA}/parties`, { key: keyA, body: { name: 'p' }, headers: { 'idempotency-key': idem } });
});
