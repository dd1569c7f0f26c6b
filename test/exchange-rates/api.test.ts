import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { rateForDocument, exchangeRateDeps } from '../../src/exchange-rates/index.ts';
import { FakeBoi, publishMarch2026 } from './fake-boi.ts';
import { createOpenapiValidator, validateTraffic } from '../contract/openapi-validator.ts';

// Friday 2026-03-20, 10:00 in Israel: the day's rate is not out yet (the Bank publishes after noon).
let clock: ManualClock;
let fake: FakeBoi;
let env: TestEnv;
let acct: TestAccount;
let biz: any;
let other: TestAccount;
/** Every answer of this file checked against /v1/openapi.json (status documented, body valid). */
let problems: string[];
let validator: ReturnType<typeof createOpenapiValidator>;

const rateUrl = (currency: string, date?: string) => `/v1/businesses/${biz.id}/exchange-rates/${currency}${date ? `?date=${date}` : ''}`;
const get = (currency: string, date?: string, key = acct.test) => env.call('GET', rateUrl(currency, date), { key });
const put = (currency: string, body: unknown, key = acct.test) => env.call('PUT', `/v1/businesses/${biz.id}/exchange-rates/${currency}`, { key, body });

beforeAll(async () => {
  clock = new ManualClock('2026-03-20T08:00:00.000Z');
  fake = await new FakeBoi().start();
  publishMarch2026(fake);
  env = await createTestEnv({ clock, env: { EXCHANGE_RATES_URL: fake.url, EXCHANGE_RATES_TIMEOUT_MS: '300' } });
  acct = await env.account();
  other = await env.account();
  biz = await env.business(acct.test);
  validator = createOpenapiValidator((await env.call('GET', '/v1/openapi.json')).body);
  problems = validateTraffic(env, validator);
});
afterAll(async () => {
  await env?.close();
  await fake?.close();
});

describe('the rate a document would use: Bank of Israel', () => {
  it('a business day answers its own representative rate', async () => {
    const r = await get('USD', '2026-03-02');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, exchangeRate: { currency: 'USD', rate: '3.073', date: '2026-03-02', source: 'boi' } });
  });

  it('a weekend takes the last business day before it; JPY per 100 comes back per one yen', async () => {
    expect((await get('USD', '2026-03-08')).body.exchangeRate).toEqual({ currency: 'USD', rate: '3.077', date: '2026-03-06', source: 'boi' });
    expect((await get('JPY', '2026-03-08')).body.exchangeRate).toEqual({ currency: 'JPY', rate: '0.01966', date: '2026-03-06', source: 'boi' });
    expect((await get('LBP', '2026-03-04')).body.exchangeRate.rate).toBe('0.00003');
  });

  it('a day already fetched is never fetched again (the cache is in the database, shared by businesses)', async () => {
    const before = fake.log.length;
    expect((await get('EUR', '2026-03-07')).body.exchangeRate).toMatchObject({ rate: '3.5499', date: '2026-03-06' });
    expect(fake.log.length).toBe(before + 1);
    expect((await get('EUR', '2026-03-07')).body.exchangeRate.rate).toBe('3.5499');
    // The days between the publication and the day asked are settled by the same answer.
    expect((await get('EUR', '2026-03-06')).body.exchangeRate.rate).toBe('3.5499');
    const otherBiz = await env.business(acct.test, { name: 'עסק שני בע"מ' });
    const r = await env.call('GET', `/v1/businesses/${otherBiz.id}/exchange-rates/EUR?date=2026-03-07`, { key: acct.test });
    expect(r.body.exchangeRate.rate).toBe('3.5499');
    expect(fake.log.length).toBe(before + 1);
    const rows = await env.sql('sandbox', `SELECT for_date::text, rate_date::text, rate FROM boi_exchange_rates WHERE currency = 'EUR' ORDER BY for_date`);
    expect(rows).toEqual([
      { for_date: '2026-03-06', rate_date: '2026-03-06', rate: '3.5499' },
      { for_date: '2026-03-07', rate_date: '2026-03-06', rate: '3.5499' },
    ]);
  });

  it("today before the day's publication takes yesterday's rate, without caching today; after it, today's", async () => {
    const morning = await get('USD');
    expect(morning.body.exchangeRate).toEqual({ currency: 'USD', rate: '3.099', date: '2026-03-19', source: 'boi' });
    fake.publish('USD', '2026-03-20', '3.104');
    clock.set('2026-03-20T12:00:00.000Z');
    expect((await get('USD')).body.exchangeRate).toEqual({ currency: 'USD', rate: '3.104', date: '2026-03-20', source: 'boi' });
    const requests = fake.log.length;
    expect((await get('USD', '2026-03-20')).body.exchangeRate.rate).toBe('3.104');
    expect(fake.log.length).toBe(requests);
  });

  it('a future date is refused (400): no rate is known for it', async () => {
    const r = await get('USD', '2026-03-21');
    expect([r.status, r.body.reason]).toEqual([400, 'validation']);
    expect(r.body.error).toMatch(/after today/);
  });

  it('a currency the Bank does not publish, or a day with no rate in reach: 400 telling to send the rate', async () => {
    const thb = await get('THB', '2026-03-02');
    expect([thb.status, thb.body.reason]).toEqual([400, 'validation']);
    expect(thb.body.error).toMatch(/send `exchangeRate`/);
    expect((await get('USD', '2025-01-10')).status).toBe(400);
  });

  it('network failure: 503 unconfigured for a day not cached, the cached answer for a day that is', async () => {
    fake.faults.push('reset', 'reset');
    const down = await get('USD', '2026-03-11');
    expect([down.status, down.body.reason]).toEqual([503, 'unconfigured']);
    expect(down.body.error).toMatch(/send `exchangeRate`/);
    fake.faults.push('hang');
    expect((await get('USD', '2026-03-12')).status).toBe(503);
    fake.faults.push('500');
    expect((await get('USD', '2026-03-02')).body.exchangeRate.rate).toBe('3.073');
    fake.faults.length = 0;
    expect((await get('USD', '2026-03-11')).body.exchangeRate.rate).toBe('3.0855');
  });

  it('rateForDocument is what the documents side calls: same answer, on a transaction too', async () => {
    const deps = exchangeRateDeps(env.s);
    expect(await rateForDocument(deps, env.db.sandbox.db, { businessId: biz.id, currency: 'USD', documentDate: '2026-03-08' })).toEqual({
      rate: '3.077',
      date: '2026-03-06',
      source: 'boi',
    });
    const inTx = await env.db.sandbox.db.transaction((tx) => rateForDocument(deps, tx, { businessId: biz.id, currency: 'JPY', documentDate: '2026-03-05' }));
    expect(inTx).toEqual({ rate: '0.01958', date: '2026-03-05', source: 'boi' });
    await expect(rateForDocument(deps, env.db.sandbox.db, { businessId: biz.id, currency: 'ILS', documentDate: '2026-03-05' })).rejects.toThrow(/shekels/);
  });
});

describe('agreed rates of a business', () => {
  it('set one: it wins from its date on, the Bank before it; audited', async () => {
    const set = await put('USD', { rate: '3.5000', effectiveFrom: '2026-03-10' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ ok: true, created: true, exchangeRate: { currency: 'USD', effectiveFrom: '2026-03-10', rate: '3.5' } });
    expect((await get('USD', '2026-03-12')).body.exchangeRate).toEqual({ currency: 'USD', rate: '3.5', date: '2026-03-10', source: 'business' });
    expect((await get('USD', '2026-03-09')).body.exchangeRate).toMatchObject({ rate: '3.081', source: 'boi' });
    const audit = await env.sql(
      'sandbox',
      `SELECT action, entity_id, before, after FROM audit_log WHERE business_id = '${biz.id}' AND entity_type = 'exchange_rate' ORDER BY seq`,
    );
    expect(audit).toEqual([{ action: 'exchange_rate.set', entity_id: 'USD:2026-03-10', before: null, after: expect.objectContaining({ rate: '3.5' }) }]);
  });

  it('a later effective-from overrides an earlier one; replacing a rate is audited with before and after', async () => {
    await put('USD', { rate: '3.6', effectiveFrom: '2026-03-15' });
    expect((await get('USD', '2026-03-14')).body.exchangeRate.rate).toBe('3.5');
    expect((await get('USD', '2026-03-16')).body.exchangeRate).toMatchObject({ rate: '3.6', date: '2026-03-15', source: 'business' });
    const replaced = await put('USD', { rate: '3.55', effectiveFrom: '2026-03-10' });
    expect(replaced.body).toMatchObject({ created: false, exchangeRate: { rate: '3.55' } });
    // The same rate again changes nothing and writes nothing.
    await put('USD', { rate: '3.550', effectiveFrom: '2026-03-10' });
    const audit = await env.sql<any>(
      'sandbox',
      `SELECT action, before->>'rate' AS before, after->>'rate' AS after FROM audit_log WHERE business_id = '${biz.id}' AND entity_type = 'exchange_rate' ORDER BY seq`,
    );
    expect(audit.map((a) => [a.action, a.before, a.after])).toEqual([
      ['exchange_rate.set', null, '3.5'],
      ['exchange_rate.set', null, '3.6'],
      ['exchange_rate.replace', '3.5', '3.55'],
    ]);
    const list = await env.call('GET', `/v1/businesses/${biz.id}/exchange-rates`, { key: acct.test });
    expect(list.body.exchangeRates.map((r: any) => [r.currency, r.effectiveFrom, r.rate])).toEqual([
      ['USD', '2026-03-10', '3.55'],
      ['USD', '2026-03-15', '3.6'],
    ]);
    expect((await env.call('GET', `/v1/businesses/${biz.id}/exchange-rates?currency=EUR`, { key: acct.test })).body.exchangeRates).toEqual([]);
  });

  it('delete one (audited); the rate before it applies again; a missing one is 404', async () => {
    const del = await env.call('DELETE', `/v1/businesses/${biz.id}/exchange-rates/USD/2026-03-15`, { key: acct.test });
    expect(del.status).toBe(200);
    expect(del.body.exchangeRate).toMatchObject({ currency: 'USD', effectiveFrom: '2026-03-15', rate: '3.6' });
    expect((await get('USD', '2026-03-16')).body.exchangeRate).toMatchObject({ rate: '3.55', date: '2026-03-10' });
    const again = await env.call('DELETE', `/v1/businesses/${biz.id}/exchange-rates/USD/2026-03-15`, { key: acct.test });
    expect([again.status, again.body.reason]).toEqual([404, 'not_found']);
    const [last] = await env.sql<any>(
      'sandbox',
      `SELECT action, before->>'rate' AS rate, after FROM audit_log WHERE business_id = '${biz.id}' ORDER BY seq DESC LIMIT 1`,
    );
    expect(last).toEqual({ action: 'exchange_rate.delete', rate: '3.6', after: null });
  });

  it('refuses bad input with 400 {error, reason}', async () => {
    const cases: [string, unknown][] = [
      ['USD', { rate: '0', effectiveFrom: '2026-03-01' }],
      ['USD', { rate: '0.00', effectiveFrom: '2026-03-01' }],
      ['USD', { rate: '-3.5', effectiveFrom: '2026-03-01' }],
      ['USD', { rate: '3,5', effectiveFrom: '2026-03-01' }],
      ['USD', { rate: 3.5, effectiveFrom: '2026-03-01' }],
      ['USD', { rate: '1234567890123', effectiveFrom: '2026-03-01' }],
      ['USD', { rate: '1.12345678901', effectiveFrom: '2026-03-01' }],
      ['USD', { rate: '3.5', effectiveFrom: '2026-02-30' }],
      ['USD', { rate: '3.5' }],
      ['USD', { rate: '3.5', effectiveFrom: '2026-03-01', extra: 1 }],
      ['ILS', { rate: '1', effectiveFrom: '2026-03-01' }],
      ['ABC', { rate: '1', effectiveFrom: '2026-03-01' }],
      ['usd', { rate: '1', effectiveFrom: '2026-03-01' }],
    ];
    for (const [currency, body] of cases) {
      const r = await put(currency, body);
      expect([r.status, r.body.reason], `${currency} ${JSON.stringify(body)}`).toEqual([400, 'validation']);
      expect(typeof r.body.error).toBe('string');
    }
    expect((await get('ILS', '2026-03-02')).status).toBe(400);
    expect((await get('USD', '2026-13-01')).status).toBe(400);
    const rows = await env.sql('sandbox', `SELECT count(*)::int AS n FROM business_exchange_rates WHERE business_id = '${biz.id}'`);
    expect(rows).toEqual([{ n: 1 }]);
  });

  it("another account's key can neither read nor set a business's rates (404)", async () => {
    for (const [method, url, body] of [
      ['GET', rateUrl('USD', '2026-03-02'), undefined],
      ['GET', `/v1/businesses/${biz.id}/exchange-rates`, undefined],
      ['PUT', `/v1/businesses/${biz.id}/exchange-rates/USD`, { rate: '9', effectiveFrom: '2026-01-01' }],
      ['DELETE', `/v1/businesses/${biz.id}/exchange-rates/USD/2026-03-10`, undefined],
    ] as const) {
      const r = await env.call(method, url, { key: other.test, body });
      expect([r.status, r.body.reason], `${method} ${url}`).toEqual([404, 'not_found']);
    }
    // Nor the live key of the same account: the business lives in the sandbox.
    expect((await get('USD', '2026-03-02', acct.live)).status).toBe(404);
    expect((await env.call('GET', `/v1/businesses/${biz.id}/exchange-rates`, { key: acct.test })).body.exchangeRates).toHaveLength(1);
  });

  it('scopes: the rate needs `documents`, agreed rates `businesses`', async () => {
    const docsOnly = (await acct.mint({ mode: 'test', scopes: ['documents'] })).secret;
    expect((await get('USD', '2026-03-02', docsOnly)).status).toBe(200);
    expect((await put('USD', { rate: '1', effectiveFrom: '2026-01-01' }, docsOnly)).status).toBe(403);
    const bizOnly = (await acct.mint({ mode: 'test', scopes: ['businesses'] })).secret;
    expect((await get('USD', '2026-03-02', bizOnly)).status).toBe(403);
    expect((await env.call('GET', `/v1/businesses/${biz.id}/exchange-rates`, { key: bizOnly })).status).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('describes every answer above: statuses, reasons and bodies', () => {
    expect(problems).toEqual([]);
    const seen = [...validator.seen].filter((w) => w.includes('exchange-rates')).sort();
    expect(seen).toEqual(
      [
        'DELETE /v1/businesses/{bid}/exchange-rates/{currency}/{effectiveFrom} → 200',
        'DELETE /v1/businesses/{bid}/exchange-rates/{currency}/{effectiveFrom} → 404',
        'GET /v1/businesses/{bid}/exchange-rates/{currency} → 200',
        'GET /v1/businesses/{bid}/exchange-rates/{currency} → 400',
        'GET /v1/businesses/{bid}/exchange-rates/{currency} → 403',
        'GET /v1/businesses/{bid}/exchange-rates/{currency} → 404',
        'GET /v1/businesses/{bid}/exchange-rates/{currency} → 503',
        'GET /v1/businesses/{bid}/exchange-rates → 200',
        'GET /v1/businesses/{bid}/exchange-rates → 404',
        'PUT /v1/businesses/{bid}/exchange-rates/{currency} → 200',
        'PUT /v1/businesses/{bid}/exchange-rates/{currency} → 400',
        'PUT /v1/businesses/{bid}/exchange-rates/{currency} → 403',
        'PUT /v1/businesses/{bid}/exchange-rates/{currency} → 404',
      ].sort(),
    );
  });
});
