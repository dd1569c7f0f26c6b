/**
 * Issue 29, item 7: an exempt dealer's draft that names a VAT rate is refused, not silently zeroed; an
 * export invoice (0%, `export`) to a foreign buyer raises no `buyer_tax_id_missing` warning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { createOpenapiValidator, validateTraffic } from '../contract/openapi-validator.ts';

let env: TestEnv;
let a: TestAccount;
let problems: string[];
const ids: Record<string, string> = {};

beforeAll(async () => {
  env = await createTestEnv({ clock: new ManualClock('2026-03-20T08:00:00.000Z') });
  a = await env.account();
  ids.company = (await env.business(a.test)).id;
  ids.patur = (await env.business(a.test, { name: 'עוסק פטור', dealerType: 'patur', taxId: TAX_IDS.person })).id;
  ids.ngo = (await env.business(a.test, { name: 'עמותה', dealerType: 'ngo', taxId: TAX_IDS.ngo })).id;
  problems = validateTraffic(env, createOpenapiValidator((await env.call('GET', '/v1/openapi.json')).body));
});
afterAll(async () => env?.close());

const call = (method: string, business: string, path: string, body?: unknown) => env.call(method, `/v1/businesses/${business}${path}`, { key: a.test, body });
const receipt = { docType: 400, payments: [{ method: 'cash', amount: 11_800 }] };

describe('an exempt dealer names no VAT rate', () => {
  it.each(['patur', 'ngo'])('a %s draft with vatRateBp 1800 is refused 400 naming the field and the rule', async (dealer) => {
    const r = await call('POST', ids[dealer], '/documents', { ...receipt, vatRateBp: 1800 });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ reason: 'validation', error: expect.stringMatching(new RegExp(`^body\\.vatRateBp: a ${dealer} dealer charges no VAT`)) });
  });

  it('a patch that names one is refused too; the draft keeps what it had', async () => {
    const d = await call('POST', ids.patur, '/documents', receipt);
    expect(d.status).toBe(201);
    const p = await call('PATCH', ids.patur, `/documents/${d.body.document.id}`, { vatRateBp: 1700, documentDate: '2024-12-01' });
    expect([p.status, p.body.reason]).toEqual([400, 'validation']);
    expect((await call('GET', ids.patur, `/documents/${d.body.document.id}`)).body.document).toMatchObject({ vatRateBp: null, documentDate: '2026-03-20' });
  });

  it('a draft stored before the rule with a rate is refused at issue, and stays a draft', async () => {
    const d = await call('POST', ids.patur, '/documents', receipt);
    await env.sql('sandbox', `UPDATE documents SET vat_rate_bp = 1800 WHERE id = '${d.body.document.id}'`);
    const i = await call('POST', ids.patur, `/documents/${d.body.document.id}/issue`);
    expect([i.status, i.body.reason]).toEqual([400, 'validation']);
    expect(i.body.error).toMatch(/^body\.vatRateBp: a patur dealer charges no VAT/);
    expect((await call('GET', ids.patur, `/documents/${d.body.document.id}`)).body.document.status).toBe('draft');
  });

  it('without a rate (or with 0 and a reason) it issues at 0', async () => {
    for (const extra of [{}, { vatRateBp: null }]) {
      const d = await call('POST', ids.patur, '/documents', { ...receipt, ...extra });
      const i = await call('POST', ids.patur, `/documents/${d.body.document.id}/issue`);
      expect([i.status, i.body.document?.vatRateBp]).toEqual([201, 0]);
    }
  });

  it('a VAT dealer still names its rate', async () => {
    const d = await call('POST', ids.company, '/documents', { docType: 305, vatRateBp: 1800, lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100 }] });
    expect(d.status).toBe(201);
  });
});

describe('the buyer tax id warning (5,000 ₪ or more before VAT)', () => {
  const invoice = (extra: Record<string, unknown>) => ({
    docType: 305,
    party: { name: 'Foreign Buyer Inc.', address: '1 Main St, New York' },
    lines: [{ description: 'Consulting', quantity: 1, unitPriceExVat: 600_000 }],
    ...extra,
  });
  async function issued(body: Record<string, unknown>) {
    const d = await call('POST', ids.company, '/documents', body);
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    const i = await call('POST', ids.company, `/documents/${d.body.document.id}/issue`);
    expect(i.status, JSON.stringify(i.body)).toBe(201);
    return i.body.document;
  }

  it('an export-exempt invoice to a foreign buyer: none', async () => {
    const doc = await issued(invoice({ vatRateBp: 0, vatExemptionReason: 'export' }));
    expect(doc).toMatchObject({ vatAmount: 0, warnings: [] });
  });

  it('a taxable one without the buyer tax id: still warned, as is an Eilat-exempt one', async () => {
    for (const extra of [{}, { vatRateBp: 0, vatExemptionReason: 'eilat' }]) {
      const doc = await issued(invoice(extra));
      expect(doc.warnings.map((w: { code: string }) => w.code)).toEqual(['buyer_tax_id_missing']);
    }
  });
});

it('every answer of this file matches the OpenAPI document', () => expect(problems).toEqual([]));
