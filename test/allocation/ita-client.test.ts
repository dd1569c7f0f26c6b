import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { JobRunner, getJob } from '../../src/platform/jobs.ts';
import { allJobHandlers } from '../../src/domains.ts';
import { allocationBackoffMs } from '../../src/allocation/lifecycle.ts';
import { FakeIta } from './fake-ita.ts';
import { docRow, events, insertDraft, insertPendingIssued } from './fixtures.ts';

const REDIRECT = 'http://localhost:3000/ita/callback';
let clock: ManualClock;
let fake: FakeIta;
let env: TestEnv;
let acct: TestAccount;
let biz: any;

const runner = () => new JobRunner({ databases: env.s.databases, clock: env.clock, logger: env.s.logger }, allJobHandlers(env.s));

/** The whole consent flow: our connect endpoint → the authority's consent screen → our callback. */
async function connect(business: any, vatNumbers: number[]) {
  fake.consentVatNumbers = vatNumbers;
  const start = await env.call('POST', `/v1/businesses/${business.id}/allocation/connect`, { key: acct.live, body: {} });
  expect(start.status).toBe(201);
  const authorize = new URL(start.body.authorizationUrl);
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${fake.url}/longtimetoken/oauth2/authorize`);
  expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
    response_type: 'code',
    client_id: 'pinkas-test',
    redirect_uri: REDIRECT,
    state: start.body.state,
  });
  const consent = await fetch(authorize, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get('location')!);
  return env.call('GET', `${back.pathname}${back.search}`);
}

beforeAll(async () => {
  clock = new ManualClock('2026-03-01T08:00:00.000Z');
  fake = await new FakeIta({ now: () => clock.now(), clientId: 'pinkas-test', clientSecret: 's3cret', redirectUri: REDIRECT }).start();
  env = await createTestEnv({
    clock,
    env: {
      ITA_CLIENT_ID: 'pinkas-test',
      ITA_CLIENT_SECRET: 's3cret',
      ITA_OAUTH_BASE_URL: fake.url,
      ITA_API_BASE_URL: fake.url,
      ITA_REDIRECT_URI: REDIRECT,
      ITA_TIMEOUT_MS: '300',
      PUBLIC_BASE_URL: 'http://localhost:3000',
    },
  });
  acct = await env.account();
  biz = await env.business(acct.live);
});
afterAll(async () => {
  await env?.close();
  await fake?.close();
});

describe('ITA client against a local server speaking the protocol', () => {
  it('a business is not connected before consent; its requests wait (pending, not_connected)', async () => {
    const conn = await env.call('GET', `/v1/businesses/${biz.id}/allocation/connection`, { key: acct.live });
    expect(conn.body.connection).toMatchObject({ status: 'not_connected', provider: 'ita', required: true, expiresAt: null });
    const id = await insertPendingIssued(env, 'live', biz);
    await runner().runDue('live');
    const row = await docRow(env, 'live', id);
    expect(row.allocation.status).toBe('pending');
    expect(row.allocation.error).toMatch(/not_connected/);
    expect(fake.approvals()).toHaveLength(0);
    // After consent the retry gets the number.
    expect((await connect(biz, [Number(TAX_IDS.company)])).status).toBe(200);
    clock.advance(allocationBackoffMs(1));
    await runner().runDue('live');
    expect((await docRow(env, 'live', id)).allocation.status).toBe('granted');
  });

  it('consent: code exchanged with client authentication; connection state and expiry', async () => {
    const tokenCall = fake.log.filter((l) => l.path === '/longtimetoken/oauth2/token').at(-1)!;
    expect(tokenCall.body).toMatchObject({ grant_type: 'authorization_code', redirect_uri: REDIRECT, client_id: 'pinkas-test' });
    expect(tokenCall.authorization).toBe(`Basic ${Buffer.from('pinkas-test:s3cret').toString('base64')}`);
    const conn = await env.call('GET', `/v1/businesses/${biz.id}/allocation/connection`, { key: acct.live });
    expect(conn.body.connection).toMatchObject({ status: 'connected', provider: 'ita', problem: null });
    expect(Date.parse(conn.body.connection.expiresAt) - clock.now().getTime()).toBeGreaterThan(29 * 86_400_000);
  });

  it('pending → granted: the v2 request carries the invoice figures; the number is the 9 right-most digits', async () => {
    const id = await insertPendingIssued(env, 'live', biz, { totalExVat: 1_234_567 });
    await runner().runDue('live');
    const body = fake.approvals().at(-1);
    expect(body).toMatchObject({
      invoice_id: id,
      invoice_type: 305,
      vat_number: 516179157,
      customer_vat_number: 512200502,
      accounting_software_number: 99999999,
      amount_before_discount: 12345.67,
      discount: 0,
      payment_amount: 12345.67,
      vat_amount: 2222.22,
      payment_amount_including_vat: 14567.89,
      invoice_date: '2026-03-01',
      invoice_issuance_date: '2026-03-01',
    });
    expect(typeof body.invoice_reference_number).toBe('string');
    expect(fake.log.at(-1)!.authorization).toMatch(/^Bearer at_/);
    const row = await docRow(env, 'live', id);
    expect(row.allocation.status).toBe('granted');
    expect(row.allocation_number).toMatch(/^\d{9}$/);
    const assigned = (await events(env, 'live', 'document.allocation_assigned')).filter((e) => e.data.documentId === id);
    expect(assigned).toEqual([{ data: { documentId: id, allocationNumber: row.allocation_number } }]);
  });

  it('refreshes the access token shortly before it expires, and stores the rotated tokens', async () => {
    const [before] = await env.sql<any>('live', `SELECT access_token, refresh_token FROM ita_connections WHERE business_id = '${biz.id}'`);
    clock.advance(9.5 * 60_000);
    const id = await insertPendingIssued(env, 'live', biz);
    await runner().runDue('live');
    const refresh = fake.log.filter((l) => l.body?.grant_type === 'refresh_token').at(-1);
    expect(refresh?.body.refresh_token).toBe(before.refresh_token);
    const [after] = await env.sql<any>('live', `SELECT access_token, refresh_token, refreshed_at FROM ita_connections WHERE business_id = '${biz.id}'`);
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect((await docRow(env, 'live', id)).allocation.status).toBe('granted');
  });

  it('a 401 from the gateway: refresh once and retry at once', async () => {
    fake.faults.push('401');
    const refreshes = fake.log.filter((l) => l.body?.grant_type === 'refresh_token').length;
    const id = await insertPendingIssued(env, 'live', biz);
    await runner().runDue('live');
    expect(fake.log.filter((l) => l.body?.grant_type === 'refresh_token').length).toBe(refreshes + 1);
    expect((await docRow(env, 'live', id)).allocation.status).toBe('granted');
  });

  it.each([
    ['432', { partyTaxId: '516179158' }],
    ['434', { documentDate: '2026-02-10' }],
    ['436', { vatRateBp: 2000 }],
  ])('pending → refused with the authority error %s (no retry)', async (code, opts) => {
    const id = await insertPendingIssued(env, 'live', biz, opts);
    await runner().runDue('live');
    const row = await docRow(env, 'live', id);
    expect(row.allocation.status).toBe('refused');
    expect(row.allocation.error).toMatch(new RegExp(`^${code}: `));
    expect(row.warnings.map((w: any) => w.code)).toEqual(['allocation_refused']);
    const failedEvt = (await events(env, 'live', 'document.allocation_failed')).find((e) => e.data.documentId === id);
    expect(failedEvt.data).toMatchObject({ status: 'refused', code });
    expect((await getJob(env.db.live.db, 'document.allocation', id))!.doneAt).not.toBeNull();
  });

  it.each([
    ['500', /http_500/],
    ['hang', /did not answer within 300 ms/],
    ['reset', /network|cut off/],
  ] as const)('transport failure (%s) keeps it pending and retries with backoff', async (fault, error) => {
    fake.faults.push(fault);
    const id = await insertPendingIssued(env, 'live', biz);
    await runner().runDue('live');
    const row = await docRow(env, 'live', id);
    expect(row.allocation.status).toBe('pending');
    expect(row.allocation.error).toMatch(error);
    const job = await getJob(env.db.live.db, 'document.allocation', id);
    expect(job).toMatchObject({ attempts: 1, doneAt: null, failedAt: null });
    clock.advance(allocationBackoffMs(1));
    await runner().runDue('live');
    expect((await docRow(env, 'live', id)).allocation.status).toBe('granted');
  });

  it('a VAT number the consent does not cover is refused with 406', async () => {
    const other = await env.business(acct.live, { taxId: TAX_IDS.company2, name: 'אחר בע"מ' });
    expect((await connect(other, [Number(TAX_IDS.company)])).status).toBe(200);
    const id = await insertPendingIssued(env, 'live', other, { partyTaxId: TAX_IDS.company });
    await runner().runDue('live');
    const row = await docRow(env, 'live', id);
    expect(row.allocation).toMatchObject({ status: 'refused' });
    expect(row.allocation.error).toMatch(/^406: /);
  });

  it('strict mode: a draft gets its number synchronously through the real client', async () => {
    const id = await insertDraft(env, 'live', biz, { totalExVat: 2_000_000 });
    const res = await env.call('POST', `/v1/businesses/${biz.id}/documents/${id}/allocation`, { key: acct.live });
    expect(res.status).toBe(200);
    expect(res.body.document.allocation.status).toBe('granted');
    expect(res.body.document.allocationNumber).toMatch(/^\d{9}$/);
    const body = fake.approvals().at(-1);
    expect(body.invoice_reference_number).toBeUndefined();
    expect(body).toMatchObject({ invoice_id: id, payment_amount: 20000, vat_amount: 3600 });
    // Edited after its number: asked again under a new invoice_id, so the authority never sees one id with two sets of figures.
    await env.sql('live', `UPDATE documents SET lines = jsonb_set(lines, '{0,unitPriceExVat}', '2100000') WHERE id = '${id}'`);
    const again = await env.call('POST', `/v1/businesses/${biz.id}/documents/${id}/allocation`, { key: acct.live });
    expect(again.body.document.allocation.status).toBe('granted');
    expect(again.body.document.allocationNumber).not.toBe(res.body.document.allocationNumber);
    expect(fake.approvals().at(-1)).toMatchObject({ invoice_id: `${id}.2`, payment_amount: 21000 });
    fake.faults.push('500');
    const draft2 = await insertDraft(env, 'live', biz);
    const down = await env.call('POST', `/v1/businesses/${biz.id}/documents/${draft2}/allocation`, { key: acct.live });
    expect(down.status).toBe(502);
    expect(down.body.reason).toBe('provider');
  });

  it('the callback refuses an unknown, reused or expired state and reports a denial', async () => {
    expect((await env.call('GET', '/ita/callback?state=l_nope&code=x')).body.reason).toBe('validation');
    const start = await env.call('POST', `/v1/businesses/${biz.id}/allocation/connect`, { key: acct.live, body: { returnUrl: 'https://app.example/done' } });
    const denied = await env.call('GET', `/ita/callback?state=${start.body.state}&error=access_denied`);
    expect(denied.status).toBe(302);
    expect(denied.headers.location).toBe(`https://app.example/done?allocation=denied&businessId=${biz.id}`);
    const again = await env.call('GET', `/ita/callback?state=${start.body.state}&code=x`);
    expect(again.status).toBe(400);
    const late = await env.call('POST', `/v1/businesses/${biz.id}/allocation/connect`, { key: acct.live });
    clock.advance(31 * 60_000);
    expect((await env.call('GET', `/ita/callback?state=${late.body.state}&code=x`)).status).toBe(400);
    // The grant of the business was not touched by any of these.
    const conn = await env.call('GET', `/v1/businesses/${biz.id}/allocation/connection`, { key: acct.live });
    expect(conn.body.connection.status).toBe('connected');
  });

  it('failed (never connected) → connect → ask again: 202 pending, the re-armed job grants it', async () => {
    const late = await env.business(acct.live, { taxId: TAX_IDS.person, dealerType: 'murshe', name: 'מאחר' });
    const id = await insertPendingIssued(env, 'live', late);
    for (let i = 1; i <= 10; i++) {
      await runner().runDue('live');
      clock.advance(allocationBackoffMs(i));
    }
    expect((await docRow(env, 'live', id)).allocation.status).toBe('failed');
    const refusedRetry = await env.call('POST', `/v1/businesses/${late.id}/documents/${id}/allocation`, { key: acct.live });
    expect(refusedRetry.status).toBe(202);
    expect(refusedRetry.body.document.allocation.status).toBe('pending');
    expect(refusedRetry.body.document.warnings.map((w: any) => w.code)).toEqual(['allocation_missing']);
    expect(await getJob(env.db.live.db, 'document.allocation', id)).toMatchObject({ attempts: 0, failedAt: null, doneAt: null });
    expect((await connect(late, [Number(TAX_IDS.person)])).status).toBe(200);
    await runner().runDue('live');
    const row = await docRow(env, 'live', id);
    expect(row.allocation.status).toBe('granted');
    expect(row.allocation_number).toMatch(/^\d{9}$/);
    const again = await env.call('POST', `/v1/businesses/${late.id}/documents/${id}/allocation`, { key: acct.live });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already has its allocation number/);
  });

  it('a revoked consent: the refresh is refused, the connection shows expired, requests wait', async () => {
    fake.revokeAll();
    clock.advance(11 * 60_000);
    const id = await insertPendingIssued(env, 'live', biz);
    await runner().runDue('live');
    const row = await docRow(env, 'live', id);
    expect(row.allocation.status).toBe('pending');
    expect(row.allocation.error).toMatch(/not_connected: .*refused the refresh token/);
    const conn = await env.call('GET', `/v1/businesses/${biz.id}/allocation/connection`, { key: acct.live });
    expect(conn.body.connection.status).toBe('expired');
    expect(conn.body.connection.problem).toMatch(/invalid_grant/);
  });
});
