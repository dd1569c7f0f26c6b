/**
 * The business's VAT reporting period (`vatReportingPeriod`): set on create and PATCH, validated; for a
 * bimonthly business `period=YYYY-MM` means its two months — the report, its lines and the PCN874 file of
 * `2026-04` are those of `2026-03/2026-04` — while an explicit two-month period is taken as written by any
 * business.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { readPcn874 } from '../../src/vat/pcn874.ts';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { issueDoc } from '../exports/fixture.ts';

let env: TestEnv;
let a: TestAccount;
let bimonthly: string;
let monthly: string;
const line = (unitPriceExVat: number) => ({ description: 'שירות', quantity: 1, unitPriceExVat });

beforeAll(async () => {
  env = await createTestEnv({ clock: new ManualClock('2026-04-15T08:00:00.000Z') });
  a = await env.account();
  bimonthly = (await env.business(a.test, { vatReportingPeriod: 'bimonthly' })).id;
  monthly = (await env.business(a.test, { taxId: TAX_IDS.company2 })).id;
  // The same two sales in each: March 1,000.00 + 180.00, April 500.00 + 90.00.
  for (const bid of [bimonthly, monthly]) {
    await issueDoc(env, a.test, bid, { docType: 305, documentDate: '2026-03-10', party: { name: 'לקוח מרץ' }, lines: [line(100_000)] });
    await issueDoc(env, a.test, bid, { docType: 305, documentDate: '2026-04-05', party: { name: 'לקוח אפריל' }, lines: [line(50_000)] });
  }
});
afterAll(async () => env?.close());

async function get(bid: string, path: string) {
  const r = await env.call('GET', `/v1/businesses/${bid}${path}`, { key: a.test });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}
const period = (p: string) => encodeURIComponent(p);

describe('vatReportingPeriod on the business', () => {
  it('is monthly by default, set on create, answered by GET', async () => {
    expect((await get(monthly, '')).business.vatReportingPeriod).toBe('monthly');
    expect((await get(bimonthly, '')).business.vatReportingPeriod).toBe('bimonthly');
  });

  it('PATCH changes it (audited); anything but monthly or bimonthly is 400 naming the field', async () => {
    const other = (await env.business(a.test, { taxId: TAX_IDS.ngo, dealerType: 'company' })).id;
    const patch = (body: unknown) => env.call('PATCH', `/v1/businesses/${other}`, { key: a.test, body });
    const set = await patch({ vatReportingPeriod: 'bimonthly' });
    expect([set.status, set.body.business.vatReportingPeriod]).toEqual([200, 'bimonthly']);
    const untouched = await patch({ name: 'שם אחר' });
    expect(untouched.body.business.vatReportingPeriod).toBe('bimonthly');
    const back = await patch({ vatReportingPeriod: 'monthly' });
    expect(back.body.business.vatReportingPeriod).toBe('monthly');
    for (const bad of ['quarterly', null, 2, '']) {
      const r = await patch({ vatReportingPeriod: bad });
      expect([r.status, r.body.reason], JSON.stringify(bad)).toEqual([400, 'validation']);
      expect(r.body.error).toContain('vatReportingPeriod');
    }
    const created = await env.call('POST', '/v1/businesses', {
      key: a.test,
      body: { name: 'x', taxId: TAX_IDS.person, dealerType: 'murshe', vatReportingPeriod: 'yearly' },
    });
    expect([created.status, created.body.reason]).toEqual([400, 'validation']);
    const audit = await env.sql<any>('sandbox', `SELECT after FROM audit_log WHERE business_id = '${other}' AND action = 'business.update' ORDER BY seq`);
    expect(audit.map((x) => x.after.vatReportingPeriod)).toEqual(['bimonthly', 'bimonthly', 'monthly']);
  });

  it('the database refuses another value', async () => {
    const err = await env.sql('sandbox', `UPDATE businesses SET vat_reporting_period = 'weekly' WHERE id = '${monthly}'`).catch((e) => e);
    expect(err?.cause?.code).toBe('23514'); // check_violation
  });
});

describe('the VAT report of a bimonthly business', () => {
  it('period=2026-04 and period=2026-03 are the report of 2026-03/2026-04, said so in period and kind', async () => {
    const explicit = (await get(bimonthly, `/reports/vat?period=${period('2026-03/2026-04')}`)).report;
    expect(explicit).toMatchObject({
      period: '2026-03/2026-04',
      kind: 'bimonthly',
      from: '2026-03-01',
      to: '2026-04-30',
      outputVat: 27_000,
      sales: { taxable: 150_000, count: 2 },
    });
    expect((await get(bimonthly, '/reports/vat?period=2026-04')).report).toEqual(explicit);
    expect((await get(bimonthly, '/reports/vat?period=2026-03')).report).toEqual(explicit);
  });

  it('its lines for a month are the lines of its two months', async () => {
    const explicit = (await get(bimonthly, `/reports/vat/lines?period=${period('2026-03/2026-04')}`)).lines;
    expect(explicit).toHaveLength(2);
    expect((await get(bimonthly, '/reports/vat/lines?period=2026-04')).lines).toEqual(explicit);
  });

  it('a monthly business answers the month, and an explicit two-month period as written', async () => {
    expect((await get(monthly, '/reports/vat?period=2026-04')).report).toMatchObject({ period: '2026-04', kind: 'monthly', outputVat: 9_000 });
    const two = (await get(monthly, `/reports/vat?period=${period('2026-03/2026-04')}`)).report;
    expect(two).toMatchObject({ period: '2026-03/2026-04', kind: 'bimonthly', outputVat: 27_000 });
    // The same books in both businesses: the bimonthly one's month is the monthly one's two months.
    const { period: _p, ...figures } = two;
    expect((await get(bimonthly, '/reports/vat?period=2026-04')).report).toMatchObject(figures);
  });

  it('a bimonthly period that does not start in an odd month is still refused', async () => {
    const r = await env.call('GET', `/v1/businesses/${bimonthly}/reports/vat?period=${period('2026-04/2026-05')}`, { key: a.test });
    expect([r.status, r.body.reason]).toEqual([400, 'validation']);
  });

  it('PCN874 of 2026-04 waits for the end of April, then is the file of both months', async () => {
    const early = await env.call('POST', `/v1/businesses/${bimonthly}/exports/pcn874`, { key: a.test, body: { period: '2026-03' } });
    expect(early.status).toBe(409);
    expect(early.body.error).toContain('2026-03/2026-04 ends on 2026-04-30');
    env.clock.set('2026-05-03T08:00:00.000Z');
    const made = await env.call('POST', `/v1/businesses/${bimonthly}/exports/pcn874`, { key: a.test, body: { period: '2026-04' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.exportRun).toMatchObject({ status: 'completed', from: '2026-03-01', to: '2026-04-30' });
    expect(made.body.file.name).toBe('PCN874.TXT');
    const read = readPcn874((await env.call('GET', `/v1/files/${made.body.file.id}`, { key: a.test })).raw);
    expect(read.problems).toEqual([]);
    expect(read.header).toMatchObject({ period: '202603', taxableSales: 1_500, taxableVat: 270, salesCount: 2 });
  });
});
