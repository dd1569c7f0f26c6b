import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoiClient, LOOKBACK_DAYS } from '../../src/exchange-rates/boi-client.ts';
import { ExchangeRateTransportError } from '../../src/exchange-rates/provider.ts';
import { FakeBoi, publishMarch2026 } from './fake-boi.ts';

let fake: FakeBoi;
let client: BoiClient;

beforeAll(async () => {
  fake = await new FakeBoi().start();
  publishMarch2026(fake);
  client = new BoiClient(fake.url, 300);
});
afterAll(async () => fake?.close());

describe('the Bank of Israel client against a local server speaking its protocol', () => {
  it('asks for the representative rates over a window ending on the day, as CSV', async () => {
    const before = fake.log.length;
    expect(await client.rateOn('USD', '2026-03-02')).toEqual({ rate: '3.073', date: '2026-03-02' });
    expect(fake.log.slice(before)).toEqual([
      { path: '/data/dataflow/BOI.STATISTICS/EXR/1.0/', query: { 'c[DATA_TYPE]': 'OF00', startperiod: '2026-02-16', endperiod: '2026-03-02', format: 'csv' } },
    ]);
    expect(LOOKBACK_DAYS).toBe(14);
  });

  it('a weekend or holiday takes the last business day before it', async () => {
    expect(await client.rateOn('USD', '2026-03-08')).toEqual({ rate: '3.077', date: '2026-03-06' });
    expect(await client.rateOn('USD', '2026-03-04')).toEqual({ rate: '3.073', date: '2026-03-02' });
    expect(await client.rateOn('USD', '2026-03-01')).toEqual({ rate: '3.079', date: '2026-02-27' });
  });

  it('JPY is quoted per 100 and LBP per 10: normalised to one unit, exactly', async () => {
    expect(await client.rateOn('JPY', '2026-03-02')).toEqual({ rate: '0.01971', date: '2026-03-02' });
    expect(await client.rateOn('JPY', '2026-03-07')).toEqual({ rate: '0.01966', date: '2026-03-06' });
    expect(await client.rateOn('LBP', '2026-03-05')).toEqual({ rate: '0.00003', date: '2026-03-05' });
  });

  it('no row in the window (404 "no results") is no rate; a currency the Bank does not publish is not asked', async () => {
    expect(await client.rateOn('USD', '2025-01-10')).toBeNull();
    const before = fake.log.length;
    expect(await client.rateOn('THB', '2026-03-02')).toBeNull();
    expect(fake.log.length).toBe(before);
  });

  it('transport failures throw, never answer a rate: 500, cut connection, timeout, an answer that is not the CSV', async () => {
    // A broken connection is tried once more (a stale kept-alive socket): a reset twice is a failure.
    fake.faults.push('reset');
    expect(await client.rateOn('USD', '2026-03-02')).toEqual({ rate: '3.073', date: '2026-03-02' });
    for (const fault of ['500', 'reset', 'hang', 'garbage'] as const) {
      fake.faults.length = 0;
      fake.faults.push(...(fault === 'reset' ? [fault, fault] : [fault]));
      await expect(client.rateOn('USD', '2026-03-02'), fault).rejects.toBeInstanceOf(ExchangeRateTransportError);
    }
    const gone = await new FakeBoi().start();
    await gone.close();
    await expect(new BoiClient(gone.url, 300).rateOn('USD', '2026-03-02')).rejects.toThrow(/cannot reach the Bank of Israel: fetch failed \(ECONNREFUSED\)/);
    fake.faults.length = 0;
    fake.faults.push('hang');
    await expect(client.rateOn('USD', '2026-03-02')).rejects.toThrow(/did not answer within 300 ms/);
    fake.faults.length = 0;
  });
});
