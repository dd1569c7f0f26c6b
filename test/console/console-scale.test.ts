/**
 * The console's documents pages on a business of 100,000 issued documents (seeded in one statement, as the
 * export's scale test does): the first page, pages deep in the list by cursor, a search and a document.
 * That they stay fast is console-documents.test.ts's check that the pages never offset or count (tests
 * assert no timings); what each step took here is printed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, TAX_IDS, type TestEnv } from '../helpers/env.ts';
import { seedIssuedInvoices } from '../exports/seed.ts';
import type { ConsoleClient } from './browser.ts';
import { FakeTwilio } from './fake-twilio.ts';
import { mintThroughConsole, signedInClient } from './helpers.ts';

const COUNT = 100_000;
let env: TestEnv;
const sms = new FakeTwilio();
let c: ConsoleClient;
let bid = '';

beforeAll(async () => {
  await sms.start();
  env = await createTestEnv({ env: sms.env() });
  ({ c } = await signedInClient(env, sms));
  const key = await mintThroughConsole(c, 'test');
  bid = (await env.business(key, { taxId: TAX_IDS.company })).id;
  await seedIssuedInvoices(env.db.sandbox.db, { businessId: bid, count: COUNT, firstNumber: 1, date: '2026-02-15', issuedAt: '2026-02-15T10:00:00.000Z' });
  await env.db.sandbox.db.execute(sql`ANALYZE documents`);
}, 300_000);

afterAll(async () => {
  await env?.close();
  await sms.stop();
});

const ids = (body: string) => [...body.matchAll(/data-document-id="([^"]+)"/g)].map((m) => m[1]);

async function timed(url: string) {
  const t = performance.now();
  const page = await c.get(url);
  console.log(`${url}: ${(performance.now() - t).toFixed(0)} ms`);
  expect(page.status, url).toBe(200);
  return page;
}

it('pages, searches and opens documents of a 100,000-document business by cursor', async () => {
  const base = `/console/sandbox/businesses/${bid}/documents`;
  let page = await timed(base);
  expect(ids(page.body)).toHaveLength(50);
  const seen = new Set(ids(page.body));
  for (let i = 0; i < 3; i++) {
    const next = page.body.match(/href="([^"]+)" rel="next"/)![1].replace(/&amp;/g, '&');
    page = await timed(next);
    for (const id of ids(page.body)) seen.add(id);
  }
  expect(seen.size).toBe(200);

  const found = await timed(`${base}?q=${encodeURIComponent('לקוח מספר 996')}`);
  expect(ids(found.body).length).toBeGreaterThan(0);
  const byNumber = await timed(`${base}?q=77777`);
  expect(ids(byNumber.body)).toHaveLength(1);
  await timed(`${base}/${ids(byNumber.body)[0]}`);
}, 120_000);
