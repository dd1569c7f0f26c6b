import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { maxLength, maxScaled } from '../../src/openfrmt/limits.ts';

// A saved party and a business default are copied into documents: they are bounded by the
// OPENFRMT fields that carry them, like a draft's own fields, so a document can never inherit a
// value the export could not write.
let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

describe('limits of what documents inherit', () => {
  it('a saved party name and address fit C100/1207 and 1208', async () => {
    const b = await env.business(a.test);
    const url = `/v1/businesses/${b.id}/parties`;
    const ok = await env.call('POST', url, { key: a.test, body: { name: 'א'.repeat(maxLength('partyName')), address: 'ב'.repeat(maxLength('partyAddress')) } });
    expect(ok.status).toBe(201);
    for (const [field, body] of [
      ['name', { name: 'א'.repeat(maxLength('partyName') + 1) }],
      ['address', { name: 'x', address: 'ב'.repeat(maxLength('partyAddress') + 1) }],
    ] as const) {
      const r = await env.call('POST', url, { key: a.test, body });
      expect(r.status, field).toBe(400);
      expect(r.body.error.startsWith(`body.${field}: `), r.body.error).toBe(true);
      const patch = await env.call('PATCH', `${url}/${ok.body.party.id}`, { key: a.test, body });
      expect(patch.status, `patch ${field}`).toBe(400);
    }
  });

  it('a business default VAT rate fits D110/1268 (at most 99.99%)', async () => {
    expect(maxScaled('vatRate')).toBe(9999);
    const r = await env.call('POST', '/v1/businesses', {
      key: a.test,
      body: { name: 'x', taxId: '516179157', dealerType: 'company', defaultVatRateBp: 10000 },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^body\.defaultVatRateBp: /);
  });
});
