import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestEnv, type TestAccount } from '../helpers/env.ts';

let env: TestEnv;
let a: TestAccount;
let bid: string;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
  bid = (await env.business(a.test)).id;
});
afterAll(async () => env?.close());

const url = (p = '') => `/v1/businesses/${bid}/parties${p}`;

describe('parties', () => {
  it('creates customers, suppliers and both with running keys per series', async () => {
    const b2 = (await env.business(a.test)).id;
    const make = async (body: object, business = b2) => (await env.call('POST', `/v1/businesses/${business}/parties`, { key: a.test, body })).body.party;
    const c1 = await make({ name: 'לקוח א' });
    const s1 = await make({ name: 'ספק א', kind: 'supplier', taxId: TAX_IDS.company2 });
    const both = await make({ name: 'גם וגם', kind: 'both' });
    const s2 = await make({ name: 'ספק ב', kind: 'supplier' });
    expect([c1.key, s1.key, both.key, s2.key]).toEqual(['C00001', 'S00001', 'C00002', 'S00002']);
    expect(c1).toMatchObject({ kind: 'customer', taxId: null, digitalDocConsentAt: null });
    expect(s1.taxId).toBe(TAX_IDS.company2);
    const list = await env.call('GET', `/v1/businesses/${b2}/parties?kind=supplier`, { key: a.test });
    expect(list.body.parties.map((p: any) => p.key).sort()).toEqual(['S00001', 'S00002']); // newest first: one millisecond here
    expect((await env.call('GET', `/v1/businesses/${b2}/parties`, { key: a.test })).body.parties).toHaveLength(4);
    expect((await env.call('GET', `/v1/businesses/${b2}/parties?kind=vendor`, { key: a.test })).status).toBe(400);
    expect((await env.call('GET', `/v1/businesses/${b2}/parties/${c1.id}`, { key: a.test })).body.party).toEqual(c1);
  });

  it('validates party input', async () => {
    for (const [body, field] of [
      [{}, 'body.name'],
      [{ name: 'x', taxId: '123456789' }, 'body.taxId'],
      [{ name: 'x', kind: 'vendor' }, 'body.kind'],
      [{ name: 'x', email: 'not-an-email' }, 'body.email'],
      [{ name: 'x', nickname: 'y' }, 'body.nickname'],
      [{ name: 'x', digitalDocConsentAt: 'yesterday' }, 'body.digitalDocConsentAt'],
    ] as const) {
      const r = await env.call('POST', url(), { key: a.test, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.reason).toBe('validation');
      expect(r.body.error).toContain(field);
    }
  });

  it('find-or-create matches the phone by its last nine digits, then the exact name; 201 when created, 200 when found', async () => {
    const created = await env.call('POST', url('/find-or-create'), {
      key: a.test,
      body: { name: 'דנה כהן', phone: '050-123-4567', address: { street: 'הרצל 5', city: 'חיפה', zip: '3303905' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.created).toBe(true);
    expect(created.body.party.address).toBe('הרצל 5, חיפה 3303905');
    const byPhone = await env.call('POST', url('/find-or-create'), { key: a.test, body: { name: 'Dana', phone: '+972 50 123 4567' } });
    expect(byPhone.status).toBe(200);
    expect(byPhone.body).toMatchObject({ created: false, party: { id: created.body.party.id } });
    const byName = await env.call('POST', url('/find-or-create'), { key: a.test, body: { name: 'דנה כהן', address: 'somewhere' } });
    expect(byName.status).toBe(200);
    expect(byName.body.party.id).toBe(created.body.party.id);
    const other = await env.call('POST', url('/find-or-create'), { key: a.test, body: { name: 'דנה לוי', phone: '0529999999' } });
    expect(other.status).toBe(201);
    expect((await env.call('POST', url('/find-or-create'), { key: a.test, body: { name: 'x', address: { planet: 'Mars' } } })).status).toBe(400);
  });

  it('patches fields and records digital-document consent', async () => {
    const p = (await env.call('POST', url(), { key: a.test, body: { name: 'Old', phone: '03-5555555' } })).body.party;
    const at = '2026-02-01T09:00:00.000Z';
    const r = await env.call('PATCH', url(`/${p.id}`), { key: a.test, body: { name: 'New', phone: null, digitalDocConsentAt: at, taxId: TAX_IDS.person } });
    expect(r.status).toBe(200);
    expect(r.body.party).toMatchObject({ name: 'New', phone: null, digitalDocConsentAt: at, taxId: TAX_IDS.person, key: p.key });
    expect((await env.call('PATCH', url('/pty_nope'), { key: a.test, body: { name: 'x' } })).status).toBe(404);
    expect((await env.call('PATCH', url(`/${p.id}`), { key: a.test, body: { kind: 'supplier' } })).status).toBe(400);
  });

  it('concurrent creation keeps the running keys gapless and unique', async () => {
    const b3 = (await env.business(a.test)).id;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        env.call('POST', `/v1/businesses/${b3}/parties`, { key: a.test, body: { name: `P${i}`, kind: i % 3 === 0 ? 'supplier' : 'customer' } }),
      ),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const keys = results.map((r) => r.body.party.key);
    const c = keys.filter((k) => k.startsWith('C')).sort();
    const s = keys.filter((k) => k.startsWith('S')).sort();
    expect(c).toEqual(Array.from({ length: 20 }, (_, i) => `C${String(i + 1).padStart(5, '0')}`));
    expect(s).toEqual(Array.from({ length: 10 }, (_, i) => `S${String(i + 1).padStart(5, '0')}`));
  });

  it('racing find-or-create calls with the same phone create one party', async () => {
    const b4 = (await env.business(a.test)).id;
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        env.call('POST', `/v1/businesses/${b4}/parties/find-or-create`, { key: a.test, body: { name: 'Same', phone: '0541112222' } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.party.id)).size).toBe(1);
  });
});
