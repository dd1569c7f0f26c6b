import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestEnv, type TestAccount } from '../helpers/env.ts';
import { setApprovalStatus, setBusinessPlan } from '../../src/businesses/service.ts';
import { upsertPlan } from '../../src/accounts/plans.ts';
import { setAccountLimits } from '../../src/accounts/accounts.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

const PNG_1PX = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('businesses', () => {
  it('creates with every writable field and reads back', async () => {
    const res = await env.call('POST', '/v1/businesses', {
      key: a.test,
      body: {
        name: 'מאפיית השכונה בע"מ',
        taxId: '516179157',
        dealerType: 'company',
        address: 'הרצל 1, תל אביב',
        phone: '03-1234567',
        email: 'office@example.co.il',
        defaultVatRateBp: 1800,
        requireAllocation: true,
        branding: {
          logo: PNG_1PX,
          accentColor: '#1a2b3c',
          tagline: 'לחם טרי כל בוקר',
          website: 'https://example.co.il',
          footerText: 'תודה!',
          template: 'stripe',
        },
        numbering: { '305': 1001 },
      },
    });
    expect(res.status).toBe(201);
    const b = res.body.business;
    expect(b).toMatchObject({
      name: 'מאפיית השכונה בע"מ',
      taxId: '516179157',
      dealerType: 'company',
      defaultVatRateBp: 1800,
      requireAllocation: true,
      approvalStatus: 'approved',
      planKey: null,
      maxDocsPerMonth: null,
      maxExpensesPerMonth: null,
      numbering: { '305': 1001 },
      deactivatedAt: null,
    });
    expect(b.branding).toMatchObject({ accentColor: '#1A2B3C', template: 'stripe', tagline: 'לחם טרי כל בוקר' });
    expect(b.branding.logo).toBeUndefined();
    expect(b.branding.logoRef).toMatchObject({ fileId: expect.stringMatching(/^file_/), sha256: expect.stringMatching(/^[0-9a-f]{64}$/), mime: 'image/png' });
    const read = await env.call('GET', `/v1/businesses/${b.id}`, { key: a.test });
    expect(read.body.business).toEqual(b);
    const file = await env.call('GET', `/v1/files/${b.branding.logoRef.fileId}`, { key: a.test });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.raw.equals(Buffer.from(PNG_1PX.split(',')[1], 'base64'))).toBe(true);
  });

  it('stores a logo once per business (by sha256)', async () => {
    const b = await env.business(a.test, { branding: { logo: PNG_1PX } });
    const p = await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { branding: { logo: PNG_1PX, tagline: 'x' } } });
    expect(p.body.business.branding.logoRef.fileId).toBe(b.branding.logoRef.fileId);
    const rows = await env.sql('sandbox', `SELECT count(*)::int AS n FROM files WHERE business_id = '${b.id}'`);
    expect(rows[0]).toEqual({ n: 1 });
    const removed = await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { branding: { logo: null } } });
    expect(removed.body.business.branding.logoRef).toBeNull();
    expect(removed.body.business.branding.tagline).toBe('x');
  });

  it.each([
    [{ taxId: '123456789' }, 'body.taxId', 'check digit'],
    [{ taxId: '000000000' }, 'body.taxId', 'zeros'],
    [{ taxId: '51617915' }, 'body.taxId', '9 digits'],
    [{ dealerType: 'llc' }, 'body.dealerType', ''],
    [{ name: '' }, 'body.name', ''],
    [{ defaultVatRateBp: 10001 }, 'body.defaultVatRateBp', ''],
    [{ defaultVatRateBp: '1800' }, 'body.defaultVatRateBp', ''],
    [{ branding: { tagline: 'x'.repeat(121) } }, 'body.branding.tagline', ''],
    [{ branding: { website: 'x'.repeat(201) } }, 'body.branding.website', ''],
    [{ branding: { accentColor: 'red' } }, 'body.branding.accentColor', ''],
    [{ branding: { template: 'fancy' } }, 'body.branding.template', ''],
    [{ branding: { logo: 'data:image/png;base64,' + 'A'.repeat(400 * 1024) } }, 'body.branding.logo', ''],
    [{ branding: { logo: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' } }, 'body.branding.logo', 'unsupported'],
    [{ branding: { logo: 'data:image/png;base64,/9j/4AAQSkZJRg==' } }, 'body.branding.logo', 'not a image/png'],
    [{ branding: { color: '#000000' } }, 'body.branding.color', 'unknown field'],
    [{ numbering: { '999': 5 } }, 'body.numbering', ''],
    [{ numbering: { '305': 0 } }, 'body.numbering', ''],
    [{ approvalStatus: 'approved' }, 'body.approvalStatus', 'unknown field'],
  ])('refuses %j with 400 validation naming %s', async (override, field, problem) => {
    const res = await env.call('POST', '/v1/businesses', {
      key: a.test,
      body: { name: 'X', taxId: TAX_IDS.company, dealerType: 'company', ...override },
    });
    expect(res.status).toBe(400);
    expect(res.body.reason).toBe('validation');
    expect(res.body.error).toContain(field);
    expect(res.body.error).toContain(problem);
  });

  it('requires name, taxId and dealerType', async () => {
    const res = await env.call('POST', '/v1/businesses', { key: a.test, body: { name: 'X', taxId: TAX_IDS.company } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('body.dealerType: is required');
  });

  it('patches fields; tax id and dealer type lock once a document was issued; numbering only before the first issue', async () => {
    const b = await env.business(a.test, { dealerType: 'murshe', taxId: TAX_IDS.person });
    const p = await env.call('PATCH', `/v1/businesses/${b.id}`, {
      key: a.test,
      body: {
        name: 'New name',
        address: null,
        requireAllocation: true,
        taxId: TAX_IDS.person2,
        dealerType: 'company',
        defaultVatRateBp: null,
        numbering: { '400': 50 },
      },
    });
    expect(p.status).toBe(200);
    expect(p.body.business).toMatchObject({ name: 'New name', taxId: TAX_IDS.person2, dealerType: 'company', numbering: { '400': 50 } });
    // Simulate a first issue of a 400 (the documents area moves last_number when it issues; the database
    // refuses a counter moved without its document, so behind the triggers).
    await env.tamper('sandbox', `UPDATE document_counters SET last_number = 50 WHERE business_id = '${b.id}' AND doc_type = 400`);
    const locked = await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { taxId: TAX_IDS.person3 } });
    expect(locked.status).toBe(409);
    expect(locked.body).toEqual({ error: expect.stringContaining('taxId'), reason: 'conflict', requestId: expect.stringMatching(/^req_/) });
    expect((await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { dealerType: 'murshe' } })).status).toBe(409);
    expect((await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { numbering: { '400': 7 } } })).status).toBe(409);
    const other = await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { numbering: { '305': 9000 }, taxId: TAX_IDS.person2 } });
    expect(other.status).toBe(200);
    expect(other.body.business.numbering).toEqual({ '305': 9000, '400': 50 });
  });

  it('deactivate refuses every write with 403 and keeps reads; reactivate reopens; each change is an event', async () => {
    const b = await env.business(a.test);
    const d = await env.call('POST', `/v1/businesses/${b.id}/deactivate`, { key: a.test });
    expect(d.status).toBe(200);
    expect(d.body.business.deactivatedAt).toBe(env.clock.now().toISOString());
    expect((await env.call('GET', `/v1/businesses/${b.id}`, { key: a.test })).status).toBe(200);
    expect((await env.call('GET', `/v1/businesses/${b.id}/parties`, { key: a.test })).status).toBe(200);
    for (const [method, url, body] of [
      ['PATCH', `/v1/businesses/${b.id}`, { name: 'x' }],
      ['POST', `/v1/businesses/${b.id}/parties`, { name: 'x' }],
      ['POST', `/v1/businesses/${b.id}/parties/find-or-create`, { name: 'x' }],
    ] as const) {
      const r = await env.call(method, url, { key: a.test, body });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('forbidden');
    }
    env.clock.advance(1_000);
    // Deactivating twice is harmless and fires nothing more.
    expect((await env.call('POST', `/v1/businesses/${b.id}/deactivate`, { key: a.test })).status).toBe(200);
    const r = await env.call('POST', `/v1/businesses/${b.id}/reactivate`, { key: a.test, headers: { 'content-type': 'application/json' }, payload: '' });
    expect(r.status).toBe(200);
    expect(r.body.business.deactivatedAt).toBeNull();
    expect((await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { name: 'x' } })).status).toBe(200);
    const events = await env.sql<{ event: string; data: any }>(
      'sandbox',
      `SELECT event, data FROM outbox_events WHERE business_id = '${b.id}' ORDER BY created_at, id`,
    );
    expect(events.map((e) => e.data)).toEqual([
      { businessId: b.id, approvalStatus: 'approved', previousStatus: 'approved', active: false, writesOpen: false },
      { businessId: b.id, approvalStatus: 'approved', previousStatus: 'approved', active: true, writesOpen: true },
    ]);
    expect(events.every((e) => e.event === 'business.status_changed')).toBe(true);
  });

  it('the operator moves approvalStatus; each change is an event', async () => {
    const b = await env.business(a.test);
    await setApprovalStatus(env.s, 'sandbox', b.id, 'suspended');
    const read = await env.call('GET', `/v1/businesses/${b.id}`, { key: a.test });
    expect(read.body.business.approvalStatus).toBe('suspended');
    const ev = await env.sql<{ data: any }>('sandbox', `SELECT data FROM outbox_events WHERE business_id = '${b.id}'`);
    expect(ev[0].data).toEqual({ businessId: b.id, approvalStatus: 'suspended', previousStatus: 'approved', active: true, writesOpen: false });
  });

  it('plans supply monthly ceilings and an account-level override wins', async () => {
    const acc = await env.account();
    const b = await env.business(acc.live);
    await upsertPlan(env.db.live.db, env.clock.now(), { key: 'small', name: 'Small', maxDocsPerMonth: 100, maxExpensesPerMonth: 50 });
    await setBusinessPlan(env.s, 'live', b.id, 'small');
    let read = (await env.call('GET', `/v1/businesses/${b.id}`, { key: acc.live })).body.business;
    expect(read).toMatchObject({ planKey: 'small', maxDocsPerMonth: 100, maxExpensesPerMonth: 50 });
    await setAccountLimits(env.db.live.db, acc.id, { maxDocsPerMonth: 500 });
    read = (await env.call('GET', `/v1/businesses/${b.id}`, { key: acc.live })).body.business;
    expect(read).toMatchObject({ maxDocsPerMonth: 500, maxExpensesPerMonth: 50 });
    const list = (await env.call('GET', '/v1/businesses', { key: acc.live })).body.businesses;
    expect(list[0]).toMatchObject({ maxDocsPerMonth: 500, maxExpensesPerMonth: 50 });
  });

  it('at most 50 new businesses per key per day (429 limit_reached), counted per key and per Israel day', async () => {
    const acc = await env.account();
    for (let i = 0; i < 50; i++) await env.business(acc.test);
    const refused = await env.call('POST', '/v1/businesses', { key: acc.test, body: { name: 'X', taxId: TAX_IDS.company, dealerType: 'company' } });
    expect(refused.status).toBe(429);
    expect(refused.body.reason).toBe('limit_reached');
    // The refused attempt created nothing.
    expect((await env.call('GET', '/v1/businesses', { key: acc.test })).body.businesses).toHaveLength(50);
    // Another key of the same account has its own allowance.
    expect(
      (
        await env.call('POST', '/v1/businesses', {
          key: (await acc.mint({ mode: 'test' })).secret,
          body: { name: 'X', taxId: TAX_IDS.company, dealerType: 'company' },
        })
      ).status,
    ).toBe(201);
    env.clock.advance(24 * 3600_000);
    expect((await env.call('POST', '/v1/businesses', { key: acc.test, body: { name: 'X', taxId: TAX_IDS.company, dealerType: 'company' } })).status).toBe(201);
  });

  it('every write appends an audit row', async () => {
    const b = await env.business(a.test);
    await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { name: 'Renamed' } });
    const rows = await env.sql<{ action: string; key_id: string; before: any; after: any }>(
      'sandbox',
      `SELECT action, key_id, before, after FROM audit_log WHERE business_id = '${b.id}' ORDER BY seq`,
    );
    expect(rows.map((r) => r.action)).toEqual(['business.create', 'business.update']);
    expect(rows[1].key_id).toBe(a.testKeyId);
    expect(rows[1].before.name).toBe('עסק לדוגמה בע"מ');
    expect(rows[1].after.name).toBe('Renamed');
  });
});
