import { describe, expect, it } from 'vitest';
import { afterAll, beforeAll } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';

// Instants outside what PostgreSQL and JS carry are refused at the door instead of failing in SQL.
let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

describe('date-time fields', () => {
  it('refuse year 0 and other out-of-range instants with 400 naming the field; accept real ones', async () => {
    const b = await env.business(a.test);
    for (const path of [`/v1/businesses/${b.id}/documents`, `/v1/businesses/${b.id}/expenses`]) {
      for (const bad of ['0000-01-01T00:00:00Z', '1899-12-31T23:59:59Z']) {
        const r = await env.call('GET', `${path}?before=${encodeURIComponent(bad)}`, { key: a.test });
        expect(r.status, `${path} ${bad}`).toBe(400);
        expect(r.body).toMatchObject({ reason: 'validation', error: expect.stringContaining('before') });
      }
      const ok = await env.call('GET', `${path}?before=${encodeURIComponent('2026-03-01T08:00:00Z')}`, { key: a.test });
      expect(ok.status).toBe(200);
    }
    const party = await env.call('POST', `/v1/businesses/${b.id}/parties`, { key: a.test, body: { name: 'x', digitalDocConsentAt: '0000-06-01T00:00:00Z' } });
    expect(party.status).toBe(400);
    expect(party.body.error).toContain('digitalDocConsentAt');
  });
});
