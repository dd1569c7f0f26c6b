import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { exchangeRateDeps, setExchangeRateProvider, type ExchangeRateProvider } from '../../src/exchange-rates/index.ts';

// The test environment has no EXCHANGE_RATES_URL: no source, so never a network call and never a made-up rate.
let env: TestEnv;
let acct: TestAccount;
let bid: string;

beforeAll(async () => {
  env = await createTestEnv({ clock: new ManualClock('2026-03-20T08:00:00.000Z') });
  acct = await env.account();
  bid = (await env.business(acct.test)).id;
});
afterAll(async () => env?.close());

const get = (currency: string, date: string) => env.call('GET', `/v1/businesses/${bid}/exchange-rates/${currency}?date=${date}`, { key: acct.test });

describe('without a configured source', () => {
  it("the Bank's rate answers 503 unconfigured, telling the caller to send the rate", async () => {
    expect(env.s.config.exchangeRates.baseUrl).toBeNull();
    expect(exchangeRateDeps(env.s).provider).toBeNull();
    const r = await get('USD', '2026-03-02');
    expect([r.status, r.body.reason]).toEqual([503, 'unconfigured']);
    expect(r.body.error).toMatch(/EXCHANGE_RATES_URL/);
    expect(r.body.error).toMatch(/send `exchangeRate`/);
  });

  it('an agreed rate of the business still answers', async () => {
    expect(
      (await env.call('PUT', `/v1/businesses/${bid}/exchange-rates/USD`, { key: acct.test, body: { rate: '3.6', effectiveFrom: '2026-01-01' } })).status,
    ).toBe(200);
    expect((await get('USD', '2026-03-02')).body.exchangeRate).toEqual({ currency: 'USD', rate: '3.6', date: '2026-01-01', source: 'business' });
    expect((await get('EUR', '2026-03-02')).status).toBe(503);
  });
});

describe('an injected source', () => {
  it('is asked once per day, and its answer kept', async () => {
    const asked: string[] = [];
    const provider: ExchangeRateProvider = {
      async rateOn(currency, date) {
        asked.push(`${currency} ${date}`);
        return { rate: '3.9000', date: '2026-03-02' };
      },
    };
    setExchangeRateProvider(env.s, provider);
    expect((await get('EUR', '2026-03-04')).body.exchangeRate).toEqual({ currency: 'EUR', rate: '3.9', date: '2026-03-02', source: 'boi' });
    expect((await get('EUR', '2026-03-04')).body.exchangeRate.rate).toBe('3.9');
    expect((await get('EUR', '2026-03-03')).body.exchangeRate.rate).toBe('3.9');
    expect(asked).toEqual(['EUR 2026-03-04']);
  });

  it('an answer that is not a rate is never passed on: 503', async () => {
    for (const bad of [
      { rate: '0', date: '2026-03-02' },
      { rate: '3.5', date: '2026-03-09' },
      { rate: 'NaN', date: '2026-03-02' },
    ]) {
      setExchangeRateProvider(env.s, { rateOn: async () => bad });
      const r = await get('GBP', '2026-03-05');
      expect([r.status, r.body.reason], JSON.stringify(bad)).toEqual([503, 'unconfigured']);
    }
    const rows = await env.sql('sandbox', `SELECT count(*)::int AS n FROM boi_exchange_rates WHERE currency = 'GBP'`);
    expect(rows).toEqual([{ n: 0 }]);
    setExchangeRateProvider(env.s, null);
    expect((await get('GBP', '2026-03-05')).status).toBe(503);
  });
});
