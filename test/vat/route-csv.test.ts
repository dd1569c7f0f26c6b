import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { issueDoc } from '../exports/fixture.ts';
import { createOpenapiValidator, validateTraffic } from '../contract/openapi-validator.ts';
import { getBusinessById } from '../../src/businesses/records.ts';
import { vatLinesCsvOf, vatReportCsv } from '../../src/vat/csv.ts';
let env: TestEnv;
let a: TestAccount;
let problems: string[];
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  problems = validateTraffic(env, createOpenapiValidator((await env.call('GET', '/v1/openapi.json')).body));
});
afterAll(async () => env?.close());
it('routes answer CSV', async () => {
  const bid = (await env.business(a.test, { vatReportingPeriod: 'bimonthly' })).id;
  await issueDoc(env, a.test, bid, {
    docType: 305,
    documentDate: '2026-02-10',
    party: { name: 'לקוח, "א"', taxId: TAX_IDS.company2 },
    lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100_000 }],
  });
  const h = { accept: 'text/csv' };
  const r = await env.call('GET', `/v1/businesses/${bid}/reports/vat?period=2026-02`, { key: a.test, headers: h });
  const j = await env.call('GET', `/v1/businesses/${bid}/reports/vat?period=2026-02`, { key: a.test });
  expect(r.headers['content-disposition']).toBe('attachment; filename="vat-516179157-2026-01-2026-02.csv"');
  expect(r.raw.equals(vatReportCsv(j.body.report))).toBe(true);
  const l = await env.call('GET', `/v1/businesses/${bid}/reports/vat/lines?period=2026-02&take=1`, { key: a.test, headers: h });
  const direct = await vatLinesCsvOf(env.db.sandbox, (await getBusinessById(env.db.sandbox.db, bid))!, '2026-02');
  expect(l.raw.equals(direct.bytes)).toBe(true);
  console.log(l.raw.toString());
  expect(problems).toEqual([]);
});
