import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestEnv } from '../helpers/env.ts';
import { issueDoc, line, renderRunner, tempDataDir } from '../prints/helpers.ts';
import type { ConsoleClient } from './browser.ts';
import { textOf } from './browser.ts';
import { FakeTwilio } from './fake-twilio.ts';
import { mintThroughConsole, signedInClient } from './helpers.ts';

let env: TestEnv;
const sms = new FakeTwilio();
let owner: { c: ConsoleClient; key: string; bid: string };
let issued: { id: string; docNumber: number }[] = [];
let draftIds: string[] = [];

const docsPath = (bid: string) => `/console/sandbox/businesses/${bid}/documents`;

beforeAll(async () => {
  await sms.start();
  env = await createTestEnv({ env: { ...sms.env(), DATA_DIR: tempDataDir() } });
  const { c } = await signedInClient(env, sms);
  const key = await mintThroughConsole(c, 'test');
  const bid = (await env.business(key, { name: 'חנות הדוגמה בע"מ', taxId: TAX_IDS.company })).id;
  owner = { c, key, bid };
  issued = [];
  for (const name of ['לקוח ראשון', 'Beta Trading Ltd', 'גמא שירותים']) {
    issued.push(await issueDoc(env, key, bid, { party: { name, taxId: TAX_IDS.person }, lines: [line({ description: `שירות עבור ${name}` })] }));
  }
  // Drafts enough for a second page (50 a page): the console pages by cursor.
  draftIds = [];
  for (let i = 0; i < 52; i++) {
    env.clock.advance(1000);
    const d = await env.call('POST', `/v1/businesses/${bid}/documents`, { key, body: { docType: 305, party: { name: `טיוטה ${i}` }, lines: [line()] } });
    draftIds.push(d.body.document.id);
  }
  await renderRunner(env).runDue('sandbox');
});

afterAll(async () => {
  await env?.close();
  await sms.stop();
});

const idsOn = (body: string) => [...body.matchAll(/data-document-id="([^"]+)"/g)].map((m) => m[1]);

describe('documents in the console', () => {
  it('lists the business of the mode the account has keys in, and the same rows the API lists, one cursor page at a time', async () => {
    const entry = await owner.c.get('/console/data');
    expect(entry.location).toBe('/console/sandbox/businesses');
    const businesses = await owner.c.get('/console/sandbox/businesses');
    expect(textOf(businesses.body)).toContain('חנות הדוגמה');
    expect((await owner.c.get('/console/live/businesses')).body).not.toContain(owner.bid);

    const first = await owner.c.get(docsPath(owner.bid));
    expect(first.status).toBe(200);
    const api = await env.call('GET', `/v1/businesses/${owner.bid}/documents?take=50`, { key: owner.key });
    expect(idsOn(first.body)).toEqual(api.body.documents.map((d: { id: string }) => d.id));
    const next = first.body.match(/href="([^"]+)" rel="next"/)?.[1].replace(/&amp;/g, '&');
    expect(next).toContain(`cursor=${api.body.nextCursor}`);
    const second = await owner.c.get(next!);
    const all = [...idsOn(first.body), ...idsOn(second.body)];
    expect(new Set(all).size).toBe(55);
    expect(second.body).not.toContain('rel="next"');
    expect(second.body).toContain('rel="first"');
    // A console page never offsets or counts, whatever the URL asks.
    const offset = await owner.c.get(`${docsPath(owner.bid)}?skip=5&counts=1&take=3`);
    expect(idsOn(offset.body)).toEqual(idsOn(first.body));
  });

  it('filters with the API’s fields and q, and refuses what the API refuses with its message', async () => {
    const found = await owner.c.get(`${docsPath(owner.bid)}?q=Beta&status=&docType=&from=&to=`);
    expect(found.status).toBe(200);
    expect(idsOn(found.body)).toEqual([issued[1].id]);
    const byNumber = await owner.c.get(`${docsPath(owner.bid)}?q=${issued[2].docNumber}&status=issued`);
    expect(idsOn(byNumber.body)).toEqual([issued[2].id]);
    expect(idsOn((await owner.c.get(`${docsPath(owner.bid)}?status=issued`)).body)).toHaveLength(3);
    expect(idsOn((await owner.c.get(`${docsPath(owner.bid)}?docType=330`)).body)).toHaveLength(0);

    const bad = await owner.c.get(`${docsPath(owner.bid)}?from=2026-02-30`);
    const api = await env.call('GET', `/v1/businesses/${owner.bid}/documents?from=2026-02-30`, { key: owner.key });
    expect(api.status).toBe(400);
    expect(bad.status).toBe(400);
    expect(textOf(bad.body)).toContain(api.body.error);
    const badCursor = await owner.c.get(`${docsPath(owner.bid)}?cursor=nope`);
    expect(badCursor.status).toBe(400);
    expect(textOf(badCursor.body)).toContain('cursor');
  });

  it('shows a document with its lines, allocation state, prints log and events, and its PDF', async () => {
    const doc = issued[0];
    const print = await env.call('POST', `/v1/businesses/${owner.bid}/documents/${doc.id}/print`, { key: owner.key, body: {} });
    expect(print.status).toBe(200);
    const page = await owner.c.get(`${docsPath(owner.bid)}/${doc.id}`);
    expect(page.status).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain(`Tax Invoice ${doc.docNumber}`);
    expect(text).toContain('שירות עבור לקוח ראשון');
    expect(text).toContain('₪236.00');
    expect(page.body).toContain('id="allocation"');
    const prints = page.body.split('id="prints"')[1].split('</table>')[0];
    expect(textOf(prints)).toContain('origin');
    expect(textOf(prints)).toContain(owner.key.slice(0, 12));
    const events = page.body.split('id="events"')[1];
    expect(events).toContain('document.issued');
    expect(events).toContain('document.pdf_ready');

    const pdfPath = page.body.match(/<iframe class="pdf" src="([^"]+)"/)![1];
    const pdf = await env.app.inject({ method: 'GET', url: pdfPath, headers: { cookie: [...owner.c.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['x-print-variant']).toBe('copy');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    // Looking is not handing out: the print log still holds the one print.
    const log = await env.call('GET', `/v1/businesses/${owner.bid}/documents/${doc.id}/prints`, { key: owner.key });
    expect(log.body.prints).toHaveLength(1);

    // A credit note and its original link to each other.
    const credit = await env.call('POST', `/v1/businesses/${owner.bid}/documents/${issued[2].id}/credit-note`, { key: owner.key, body: { reason: 'החזרה' } });
    expect(credit.status, JSON.stringify(credit.body)).toBe(201);
    const creditPage = await owner.c.get(`${docsPath(owner.bid)}/${credit.body.document.id}`);
    expect(creditPage.body).toContain(`href="${docsPath(owner.bid)}/${issued[2].id}" id="linked-document"`);
    const original = await owner.c.get(`${docsPath(owner.bid)}/${issued[2].id}`);
    expect(original.body).toContain(`href="${docsPath(owner.bid)}/${credit.body.document.id}" id="credited-by"`);

    const draft = await owner.c.get(`${docsPath(owner.bid)}/${draftIds[0]}`);
    expect(draft.status).toBe(200);
    expect(textOf(draft.body)).toContain('Draft Tax Invoice');
  });

  it('answers 404 for another account’s business and document, in every form', async () => {
    const { c: other } = await signedInClient(env, sms);
    const otherKey = await mintThroughConsole(other, 'test');
    const otherBid = (await env.business(otherKey, { name: 'Other Ltd', taxId: TAX_IDS.company2 })).id;
    expect((await other.get(docsPath(owner.bid))).status).toBe(404);
    expect((await other.get(`${docsPath(owner.bid)}/${issued[0].id}`)).status).toBe(404);
    expect((await other.get(`${docsPath(owner.bid)}/${issued[0].id}/pdf`)).status).toBe(404);
    // Its own business with another's document id: not found either.
    expect((await other.get(`${docsPath(otherBid)}/${issued[0].id}`)).status).toBe(404);
    expect((await other.get(`${docsPath(otherBid)}/${issued[0].id}/pdf`)).status).toBe(404);
    // The other database does not hold the business.
    expect((await owner.c.get(`/console/live/businesses/${owner.bid}/documents`)).status).toBe(404);
  });

  it('is closed without a signed-in session', async () => {
    const res = await env.app.inject({ method: 'GET', url: docsPath(owner.bid) });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/console/sign-in');
  });
});
