import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { JobRunner } from '../../src/platform/jobs.ts';
import { allJobHandlers } from '../../src/domains.ts';
import { startExpiryWorker, warnExpiringConnections } from '../../src/allocation/expiry.ts';
import { events } from './fixtures.ts';

let env: TestEnv;
let a: TestAccount;
let b: any;

const line = (unitPriceExVat: number) => ({ description: 'ייעוץ', quantity: 1, unitPriceExVat });
const big = (over: Record<string, unknown> = {}) => ({ docType: 305, party: { name: 'עוסק', taxId: TAX_IDS.company2 }, lines: [line(1_500_000)], ...over });
const runner = () => new JobRunner({ databases: env.s.databases, clock: env.clock, logger: env.s.logger }, allJobHandlers(env.s));

async function draft(body: Record<string, unknown>, bid = b.id) {
  const res = await env.call('POST', `/v1/businesses/${bid}/documents`, { key: a.test, body });
  expect(res.status).toBe(201);
  return res.body.document;
}
const issue = (id: string, bid = b.id) => env.call('POST', `/v1/businesses/${bid}/documents/${id}/issue`, { key: a.test });
const ask = (id: string, bid = b.id) => env.call('POST', `/v1/businesses/${bid}/documents/${id}/allocation`, { key: a.test });
const get = (id: string, bid = b.id) => env.call('GET', `/v1/businesses/${bid}/documents/${id}`, { key: a.test });

beforeAll(async () => {
  env = await createTestEnv({ env: { PUBLIC_BASE_URL: 'http://pinkas.test' } });
  a = await env.account();
  b = await env.business(a.test);
});
afterAll(async () => env?.close());

describe('allocation through the documents API (sandbox simulator)', () => {
  it('non-strict issue → pending with a warning → the job grants → the document shows the number', async () => {
    const d = await draft(big());
    const issued = (await issue(d.id)).body.document;
    expect(issued.allocation.status).toBe('pending');
    expect(issued.warnings.map((w: any) => w.code)).toEqual(['allocation_missing']);
    await runner().runDue('sandbox');
    const after = (await get(d.id)).body.document;
    expect(after.allocationNumber).toMatch(/^\d{9}$/);
    expect(after.allocation).toMatchObject({ status: 'granted', number: after.allocationNumber, error: null });
    expect(after.warnings).toEqual([]);
    expect((await events(env, 'sandbox', 'document.allocation_assigned')).map((e) => e.data)).toContainEqual({
      documentId: d.id,
      allocationNumber: after.allocationNumber,
    });
  });

  it('a refused issued document is final: asking again answers 409', async () => {
    const d = await draft(big({ note: '[sim:436]' }));
    await issue(d.id);
    await runner().runDue('sandbox');
    const after = (await get(d.id)).body.document;
    expect(after.allocation.status).toBe('refused');
    expect(after.warnings.map((w: any) => w.code)).toEqual(['allocation_refused']);
    const again = await ask(d.id);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/refused/);
  });

  it('a document below the threshold is not_required and gets no job', async () => {
    const d = await draft(big({ lines: [line(1_000_000)] })); // exactly 10,000 NIS on 2026-03-01: not above
    const issued = (await issue(d.id)).body.document;
    expect(issued.allocation.status).toBe('not_required');
    expect(await env.sql('sandbox', `SELECT 1 FROM jobs WHERE kind = 'document.allocation' AND ref_id = '${d.id}'`)).toHaveLength(0);
  });

  describe('strict mode', () => {
    let strict: any;
    beforeAll(async () => {
      strict = await env.business(a.test, { name: 'קפדן בע"מ' });
      const p = await env.call('PATCH', `/v1/businesses/${strict.id}`, { key: a.test, body: { requireAllocation: true } });
      expect(p.body.business.requireAllocation).toBe(true);
    });

    it('issue answers 422 allocation_required; the draft gets a number synchronously and then issues with it', async () => {
      const d = await draft(big(), strict.id);
      const refused = await issue(d.id, strict.id);
      expect(refused.status).toBe(422);
      expect(refused.body.reason).toBe('allocation_required');
      const got = await ask(d.id, strict.id);
      expect(got.status).toBe(200);
      expect(got.body.document.status).toBe('draft');
      expect(got.body.document.allocation.status).toBe('granted');
      const number = got.body.document.allocationNumber;
      expect(number).toMatch(/^\d{9}$/);
      // Asking again for the same figures keeps the number.
      expect((await ask(d.id, strict.id)).body.document.allocationNumber).toBe(number);
      const ok = await issue(d.id, strict.id);
      expect([200, 201]).toContain(ok.status);
      expect(ok.body.document).toMatchObject({ status: 'issued', allocationNumber: number });
      expect(ok.body.document.allocation.status).toBe('granted');
      // No job: the number was there at issue.
      expect(await env.sql('sandbox', `SELECT 1 FROM jobs WHERE kind = 'document.allocation' AND ref_id = '${d.id}'`)).toHaveLength(0);
      // An issued document is not asked again through this endpoint.
      const again = await ask(d.id, strict.id);
      expect(again.status).toBe(409);
      expect(again.body.reason).toBe('not_draft');
    });

    it('a draft edited after its number asks again (the number must match the issued figures)', async () => {
      const d = await draft(big(), strict.id);
      const first = (await ask(d.id, strict.id)).body.document.allocationNumber;
      const patched = await env.call('PATCH', `/v1/businesses/${strict.id}/documents/${d.id}`, { key: a.test, body: { lines: [line(1_600_000)] } });
      expect(patched.status).toBe(200);
      // The edit dropped the number (the database does it): issue refuses until it is asked again.
      expect(patched.body.document.allocationNumber).toBeNull();
      expect(patched.body.document.allocation).toMatchObject({ status: 'failed', number: null });
      expect((await issue(d.id, strict.id)).body.reason).toBe('allocation_required');
      const second = (await ask(d.id, strict.id)).body.document;
      expect(second.allocation.status).toBe('granted');
      expect(second.allocationNumber).toMatch(/^\d{9}$/);
      expect(second.allocationNumber).not.toBe(first);
      // An edit that leaves the figures alone keeps the number; a number the caller sets is kept.
      const same = await env.call('PATCH', `/v1/businesses/${strict.id}/documents/${d.id}`, { key: a.test, body: { valueDate: '2026-03-02' } });
      expect(same.body.document.allocationNumber).toBe(second.allocationNumber);
      const own = await env.call('PATCH', `/v1/businesses/${strict.id}/documents/${d.id}`, {
        key: a.test,
        body: { lines: [line(1_700_000)], allocationNumber: '987654321' },
      });
      expect(own.body.document.allocationNumber).toBe('987654321');
      expect([200, 201]).toContain((await issue(d.id, strict.id)).status);
    });

    it('a refusal is an answer (200, status refused with the error); issue still refuses', async () => {
      const d = await draft(big({ note: 'בדיקה [sim:434]' }), strict.id);
      const res = await ask(d.id, strict.id);
      expect(res.status).toBe(200);
      expect(res.body.document.allocation).toMatchObject({ status: 'refused', number: null });
      expect(res.body.document.allocation.error).toMatch(/^434: Invoice date is more than two weeks old/);
      expect(res.body.document.allocationNumber).toBeNull();
      expect((await issue(d.id, strict.id)).body.reason).toBe('allocation_required');
    });

    it('an unreachable authority answers 502 provider and leaves the draft unchanged', async () => {
      const d = await draft(big({ note: '[sim:fail]' }), strict.id);
      const res = await ask(d.id, strict.id);
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ reason: 'provider' });
      expect((await get(d.id, strict.id)).body.document.allocationNumber).toBeNull();
    });

    it('drafts the authority cannot number answer 400 naming the problem', async () => {
      const anonymous = await draft(big({ party: { name: 'פרטי' } }), strict.id);
      const r1 = await ask(anonymous.id, strict.id);
      expect(r1.status).toBe(400);
      expect(r1.body).toMatchObject({ reason: 'validation' });
      expect(r1.body.error).toMatch(/taxId/);
      const receipt = await draft({ docType: 400, payments: [{ method: 'cash', amount: 500 }] }, strict.id);
      expect((await ask(receipt.id, strict.id)).status).toBe(400);
      expect((await env.call('POST', `/v1/businesses/${strict.id}/documents/doc_nope/allocation`, { key: a.test })).status).toBe(404);
    });
  });

  describe('connection (simulated consent in the sandbox)', () => {
    it('connect → consent screen → callback → connected; the state is single use', async () => {
      const before = await env.call('GET', `/v1/businesses/${b.id}/allocation/connection`, { key: a.test });
      expect(before.body.connection).toMatchObject({ status: 'not_connected', provider: 'simulator', required: false });
      const start = await env.call('POST', `/v1/businesses/${b.id}/allocation/connect`, { key: a.test });
      expect(start.status).toBe(201);
      expect(start.body.authorizationUrl).toBe(`http://pinkas.test/ita/simulator/authorize?state=${start.body.state}`);
      const screen = await env.call('GET', start.body.authorizationUrl.replace('http://pinkas.test', ''));
      expect(screen.status).toBe(302);
      const back = new URL(String(screen.headers.location));
      expect(back.pathname).toBe('/ita/callback');
      const cb = await env.call('GET', `${back.pathname}${back.search}`);
      expect(cb.status).toBe(200);
      expect(cb.body).toEqual({ ok: true, businessId: b.id, status: 'connected' });
      expect((await env.call('GET', `${back.pathname}${back.search}`)).status).toBe(400);
      const conn = (await env.call('GET', `/v1/businesses/${b.id}/allocation/connection`, { key: a.test })).body.connection;
      expect(conn).toMatchObject({ status: 'connected', provider: 'simulator', connectedAt: env.clock.now().toISOString() });
      expect(conn.expiresAt).toBe(new Date(env.clock.now().getTime() + 30 * 86_400_000).toISOString());
    });

    it('a denial at the consent screen answers 403 and stores nothing', async () => {
      const other = await env.business(a.test, { name: 'מסרב בע"מ' });
      const start = await env.call('POST', `/v1/businesses/${other.id}/allocation/connect`, { key: a.test });
      const screen = await env.call('GET', `${start.body.authorizationUrl.replace('http://pinkas.test', '')}&deny=1`);
      const back = new URL(String(screen.headers.location));
      const cb = await env.call('GET', `${back.pathname}${back.search}`);
      expect(cb.status).toBe(403);
      expect((await env.call('GET', `/v1/businesses/${other.id}/allocation/connection`, { key: a.test })).body.connection.status).toBe('not_connected');
    });

    it('fires allocation.connection_expiring once before the grant expires; expiring → expired', async () => {
      const sandbox = env.db.sandbox;
      expect(await warnExpiringConnections(env.s, sandbox)).toBe(0);
      env.clock.advance(27.5 * 86_400_000); // 2.5 days left, warning at 72 h
      expect(await warnExpiringConnections(env.s, sandbox)).toBe(1);
      expect(await warnExpiringConnections(env.s, sandbox)).toBe(0);
      const evts = (await events(env, 'sandbox', 'allocation.connection_expiring')).filter((e) => e.data.businessId === b.id);
      expect(evts).toHaveLength(1);
      expect(evts[0].data).toMatchObject({ businessId: b.id, expired: false });
      const conn = await env.call('GET', `/v1/businesses/${b.id}/allocation/connection`, { key: a.test });
      expect(conn.body.connection.status).toBe('expiring');
      env.clock.advance(3 * 86_400_000);
      expect(await warnExpiringConnections(env.s, sandbox)).toBe(0);
      expect((await env.call('GET', `/v1/businesses/${b.id}/allocation/connection`, { key: a.test })).body.connection.status).toBe('expired');
    });

    it('DELETE forgets the grant', async () => {
      const del = await env.call('DELETE', `/v1/businesses/${b.id}/allocation/connection`, { key: a.test });
      expect(del.body).toEqual({ ok: true, deleted: true });
      expect((await env.call('GET', `/v1/businesses/${b.id}/allocation/connection`, { key: a.test })).body.connection.status).toBe('not_connected');
    });

    it('the routes are in the OpenAPI document; the expiry worker starts and stops cleanly', async () => {
      const doc = await env.call('GET', '/v1/openapi.json');
      expect(doc.status).toBe(200);
      for (const p of [
        '/v1/businesses/{bid}/allocation/connect',
        '/v1/businesses/{bid}/allocation/connection',
        '/v1/businesses/{bid}/documents/{id}/allocation',
        '/ita/callback',
      ]) {
        expect(Object.keys(doc.body.paths)).toContain(p);
      }
      const worker = startExpiryWorker(env.s, 20);
      await new Promise((r) => setTimeout(r, 60));
      await worker.stop();
    });

    it('the callback refuses unknown states; the simulated screen does not exist for the live ITA', async () => {
      expect((await env.call('GET', '/ita/callback?state=zzz&code=1')).status).toBe(400);
      expect((await env.call('GET', '/ita/callback')).status).toBe(400);
    });
  });
});

describe('live in production without ITA configuration never fakes a number', () => {
  let prod: TestEnv;
  let pa: TestAccount;
  beforeAll(async () => {
    prod = await createTestEnv({ env: { PINKAS_ENV: 'production', CONSOLE_SECURE_COOKIES: 'false' } });
    pa = await prod.account();
  });
  afterAll(async () => prod?.close());

  it('connect and the draft request answer 503 unconfigured; issued documents stay pending; the sandbox still works', async () => {
    const live = await prod.business(pa.live);
    const c = await prod.call('POST', `/v1/businesses/${live.id}/allocation/connect`, { key: pa.live });
    expect(c.status).toBe(503);
    expect(c.body.reason).toBe('unconfigured');
    const mk = async (key: string, bid: string) => (await prod.call('POST', `/v1/businesses/${bid}/documents`, { key, body: big() })).body.document;
    const d = await mk(pa.live, live.id);
    const r = await prod.call('POST', `/v1/businesses/${live.id}/documents/${d.id}/allocation`, { key: pa.live });
    expect(r.status).toBe(503);
    expect(r.body.reason).toBe('unconfigured');
    const issued = await prod.call('POST', `/v1/businesses/${live.id}/documents/${d.id}/issue`, { key: pa.live });
    expect(issued.body.document.allocation.status).toBe('pending');
    await new JobRunner({ databases: prod.s.databases, clock: prod.clock, logger: prod.s.logger }, allJobHandlers(prod.s)).runDue('live');
    const after = (await prod.call('GET', `/v1/businesses/${live.id}/documents/${d.id}`, { key: pa.live })).body.document;
    expect(after.allocationNumber).toBeNull();
    expect(after.allocation.status).toBe('pending');
    expect(after.allocation.error).toMatch(/unconfigured/);

    const sb = await prod.business(pa.test);
    const sd = await mk(pa.test, sb.id);
    const sim = await prod.call('POST', `/v1/businesses/${sb.id}/documents/${sd.id}/allocation`, { key: pa.test });
    expect(sim.status).toBe(200);
    expect(sim.body.document.allocationNumber).toMatch(/^\d{9}$/);
  });
});
