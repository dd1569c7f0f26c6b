import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataUri, jpeg } from '../expenses/fixtures.ts';
import { createTestEnv, TAX_IDS, type TestEnv } from '../helpers/env.ts';
import { issueDoc, tempDataDir } from '../prints/helpers.ts';
import { textOf, type ConsoleClient } from './browser.ts';
import { FakeTwilio } from './fake-twilio.ts';
import { mintThroughConsole, signedInClient } from './helpers.ts';

let env: TestEnv;
const sms = new FakeTwilio();
let owner: { c: ConsoleClient; key: string; bid: string; receiptFileId: string; exportFileId: string; partyId: string };

beforeAll(async () => {
  await sms.start();
  env = await createTestEnv({ env: { ...sms.env(), DATA_DIR: tempDataDir() } });
  const { c } = await signedInClient(env, sms);
  const key = await mintThroughConsole(c, 'test');
  const bid = (await env.business(key, { taxId: TAX_IDS.company })).id;
  const party = await env.call('POST', `/v1/businesses/${bid}/parties`, { key, body: { kind: 'customer', name: 'לקוח קבוע בע"מ', taxId: TAX_IDS.person } });
  expect(party.status, JSON.stringify(party.body)).toBe(201);
  await env.call('POST', `/v1/businesses/${bid}/parties`, { key, body: { kind: 'supplier', name: 'ספק הנייר', taxId: TAX_IDS.person2 } });
  await issueDoc(env, key, bid, { party: { partyId: party.body.party.id } });
  const p = `/v1/businesses/${bid}/expenses`;
  const up = await env.call('POST', `${p}/upload`, { key, body: { file: dataUri('image/jpeg', await jpeg()) } });
  expect(up.status, JSON.stringify(up.body)).toBe(201);
  await env.call('PATCH', `${p}/${up.body.expense.id}`, {
    key,
    body: { categoryKey: 'office', supplier: { name: 'ספק הנייר' }, supplierDocDate: '2026-02-20', amountIncVat: 11800, vatAmount: 1800 },
  });
  await env.call('POST', p, { key, body: { supplier: { name: 'Typing Supplies Ltd' }, supplierDocDate: '2026-02-21', amountIncVat: 5900 } });
  const run = await env.call('POST', `/v1/businesses/${bid}/exports/openfrmt`, { key, body: { from: '2026-03-01', to: '2026-03-31' } });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  owner = { c, key, bid, receiptFileId: up.body.expense.receiptFileId, exportFileId: run.body.file.id, partyId: party.body.party.id };
});

afterAll(async () => {
  await env?.close();
  await sms.stop();
});

const path = (section: string) => `/console/sandbox/businesses/${owner.bid}/${section}`;
const cookie = () => [...owner.c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');

describe('parties, expenses and exports in the console', () => {
  it('lists the parties, by kind, each linking to its documents', async () => {
    const page = await owner.c.get(path('parties'));
    expect(page.status).toBe(200);
    expect(textOf(page.body)).toContain('לקוח קבוע בע"מ');
    expect(textOf(page.body)).toContain('ספק הנייר');
    const suppliers = await owner.c.get(`${path('parties')}?kind=supplier`);
    expect(textOf(suppliers.body)).not.toContain('לקוח קבוע');
    const bad = await owner.c.get(`${path('parties')}?kind=vendor`);
    const api = await env.call('GET', `/v1/businesses/${owner.bid}/parties?kind=vendor`, { key: owner.key });
    expect(api.status).toBe(400);
    expect(bad.status).toBe(400);
    expect(textOf(bad.body)).toContain(api.body.error);
    const row = page.body.split(`data-party-id="${owner.partyId}"`)[1];
    const link = row.match(/href="([^"]+partyId=[^"]+)"/)![1].replace(/&amp;/g, '&');
    const docs = await owner.c.get(link);
    expect(docs.status).toBe(200);
    expect([...docs.body.matchAll(/data-document-id="/g)]).toHaveLength(1);
  });

  it('lists the expenses with the API’s filters, a receipt thumbnail, and the receipt itself', async () => {
    const page = await owner.c.get(path('expenses'));
    expect(page.status).toBe(200);
    expect([...page.body.matchAll(/data-expense-id="/g)]).toHaveLength(2);
    expect(page.body).toMatch(/<img class="thumb" src="data:image\/jpeg;base64,/);
    expect(textOf(page.body)).toContain('₪118.00');
    const found = await owner.c.get(`${path('expenses')}?q=Typing&status=`);
    expect([...found.body.matchAll(/data-expense-id="/g)]).toHaveLength(1);
    const bad = await owner.c.get(`${path('expenses')}?status=paid`);
    const api = await env.call('GET', `/v1/businesses/${owner.bid}/expenses?status=paid`, { key: owner.key });
    expect(bad.status).toBe(400);
    expect(textOf(bad.body)).toContain(api.body.error);
    const receipt = await env.app.inject({ method: 'GET', url: `/console/sandbox/files/${owner.receiptFileId}`, headers: { cookie: cookie() } });
    expect(receipt.statusCode).toBe(200);
    expect(receipt.headers['content-type']).toBe('image/jpeg');
    expect(receipt.headers['content-disposition']).toMatch(/^attachment;/);
  });

  it('lists the export runs with their verification and downloads the file', async () => {
    const page = await owner.c.get(path('exports'));
    expect(page.status).toBe(200);
    expect(textOf(page.body)).toContain('openfrmt');
    expect(textOf(page.body)).toContain('2026-03-01 – 2026-03-31');
    const href = page.body.match(/<a href="([^"]+)" download>/)![1];
    expect(href).toBe(`/console/sandbox/files/${owner.exportFileId}`);
    const zip = await env.app.inject({ method: 'GET', url: href, headers: { cookie: cookie() } });
    const api = await env.call('GET', `/v1/files/${owner.exportFileId}`, { key: owner.key });
    expect(zip.statusCode).toBe(200);
    expect(zip.rawPayload.equals(api.raw)).toBe(true);
  });

  it('answers 404 for another account’s business and files', async () => {
    const { c: other } = await signedInClient(env, sms);
    await mintThroughConsole(other, 'test');
    for (const section of ['parties', 'expenses', 'exports']) expect((await other.get(path(section))).status).toBe(404);
    expect((await other.get(`/console/sandbox/files/${owner.exportFileId}`)).status).toBe(404);
    expect((await other.get(`/console/sandbox/files/${owner.receiptFileId}`)).status).toBe(404);
  });
});
