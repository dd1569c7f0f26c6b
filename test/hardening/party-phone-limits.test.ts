import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { maxLength } from '../../src/openfrmt/limits.ts';
import { LIMITS } from '../../src/documents/schemas.ts';
import { expectRefused } from './helpers.ts';

// A phone that can end up on a document fits what the document carries (OPENFRMT C100/1214,
// LIMITS.partyPhoneChars): a saved party's phone is refused at the parties API, as sent and as
// written to the file (folded to ISO-8859-8), and so is the business's own phone, printed on
// every document beside it. find-or-create still matches by a longer phone; it only refuses to
// create a party with one.
let env: TestEnv;
let a: TestAccount;
let bid: string;
const url = (rest = '') => `/v1/businesses/${bid}/parties${rest}`;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  bid = (await env.business(a.test)).id;
});
afterAll(async () => env?.close());

const MAX = LIMITS.partyPhoneChars;
const fits = '+' + '9'.repeat(MAX - 1);
const tooLong = '+' + '9'.repeat(MAX);
// 13 characters as sent, 15 + 2 as written: ₪ is written as three characters (ש"ח).
const foldsLonger = '050-1234567₪₪';

describe('a phone that ends up on a document', () => {
  it('is bounded by C100/1214, the same limit as a draft party phone', () => {
    expect(MAX).toBe(maxLength('partyPhone'));
    expect(MAX).toBe(15);
  });

  it('a saved party: create and patch refuse a phone the export cannot carry, naming the field', async () => {
    const ok = await env.call('POST', url(), { key: a.test, body: { name: 'x', phone: fits } });
    expect(ok.status).toBe(201);
    expect(ok.body.party.phone).toBe(fits);
    for (const phone of [tooLong, foldsLonger]) {
      expectRefused(await env.call('POST', url(), { key: a.test, body: { name: 'y', phone } }), 400, {
        reason: 'validation',
        field: 'body.phone',
        label: phone,
      });
      expectRefused(await env.call('PATCH', url(`/${ok.body.party.id}`), { key: a.test, body: { phone } }), 400, {
        reason: 'validation',
        field: 'body.phone',
        label: phone,
      });
    }
    const again = await env.call('GET', url(`/${ok.body.party.id}`), { key: a.test });
    expect(again.body.party.phone).toBe(fits);
    const r = await env.call('POST', url(), { key: a.test, body: { name: 'y', phone: foldsLonger } });
    expect(r.body.error).toMatch(/C100\/1214/);
  });

  it('find-or-create matches by a longer phone but never creates a party with it', async () => {
    const saved = await env.call('POST', url(), { key: a.test, body: { name: 'דנה', phone: '050-765-4321' } });
    expect(saved.status).toBe(201);
    const found = await env.call('POST', url('/find-or-create'), { key: a.test, body: { name: 'Dana', phone: '+972 (50) 765-4321' } });
    expect(found.status).toBe(200);
    expect(found.body.party.id).toBe(saved.body.party.id);
    const refused = await env.call('POST', url('/find-or-create'), { key: a.test, body: { name: 'Other', phone: '+972 (52) 111-2222' } });
    expectRefused(refused, 400, { reason: 'validation', field: 'body.phone' });
    const created = await env.call('POST', url('/find-or-create'), { key: a.test, body: { name: 'Other', phone: '052-111-2222' } });
    expect(created.status).toBe(201);
  });

  it('a saved party with a phone that fits is copied into a draft and issued', async () => {
    const p = await env.call('POST', url(), { key: a.test, body: { name: 'לקוח', phone: fits } });
    const d = await env.call('POST', `/v1/businesses/${bid}/documents`, {
      key: a.test,
      body: { docType: 305, party: { partyId: p.body.party.id }, lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100 }] },
    });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    expect(d.body.document.party.phone).toBe(fits);
  });

  it("the business's phone: create and patch refuse one longer than the customer's field", async () => {
    const base = { name: 'x', taxId: '516179157', dealerType: 'company' };
    const ok = await env.call('POST', '/v1/businesses', { key: a.test, body: { ...base, phone: fits } });
    expect(ok.status).toBe(201);
    expectRefused(await env.call('POST', '/v1/businesses', { key: a.test, body: { ...base, phone: tooLong } }), 400, {
      reason: 'validation',
      field: 'body.phone',
    });
    expectRefused(await env.call('PATCH', `/v1/businesses/${ok.body.business.id}`, { key: a.test, body: { phone: tooLong } }), 400, {
      reason: 'validation',
      field: 'body.phone',
    });
  });
});
