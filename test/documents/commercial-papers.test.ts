/**
 * The commercial papers beside the tax documents (issue 30, decisions.md "Document types beyond the
 * four"): 10 price quote, 100 order, 200 delivery note, 210 return note, 300 transaction invoice. Every
 * dealer issues them with the guarantees of the four (drafts, idempotency, a gapless series with a
 * chosen start, a frozen and immutable row, prints, events, continuity, list filters), and they leave
 * the books, the VAT report and PCN874 as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { renderRunner, tempDataDir } from '../prints/helpers.ts';
import { pdfText } from '../pdf/extract-text.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv({ env: { DATA_DIR: tempDataDir() } });
  a = await env.account();
});
afterAll(async () => env?.close());

const PAPERS = [10, 100, 200, 210, 300] as const;
/** 2 × 250.00 − 5.00 line discount = 495.00; VAT 18% 89.10; 584.10. */
const paper = (docType: number, over: Record<string, unknown> = {}) => ({
  docType,
  party: { name: 'בונים בע"מ', taxId: TAX_IDS.company2 },
  lines: [{ description: 'בלוקים', quantity: 2, unitPriceExVat: 25_000, lineDiscount: 500, unit: 'משטח' }],
  ...over,
});
const base = (bid: string) => `/v1/businesses/${bid}`;
const draft = (bid: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  env.call('POST', `${base(bid)}/documents`, { key: a.test, body, headers });
const issue = (bid: string, id: string) => env.call('POST', `${base(bid)}/documents/${id}/issue`, { key: a.test });
async function issued(bid: string, body: Record<string, unknown>) {
  const d = await draft(bid, body);
  expect(d.status, JSON.stringify(d.body)).toBe(201);
  const i = await issue(bid, d.body.document.id);
  expect(i.status, JSON.stringify(i.body)).toBe(201);
  return i.body.document;
}
/** The database's own refusal of a statement (drizzle wraps it; the cause is PostgreSQL's). */
async function refusal(statement: string): Promise<string> {
  try {
    await env.sql('sandbox', statement);
  } catch (err) {
    return String((err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message);
  }
  return 'accepted';
}
const count = async (sql: string) => Number((await env.sql<{ n: number }>('sandbox', sql))[0].n);

describe('a licensed dealer issues every commercial paper', () => {
  let bid: string;
  const docs: Record<number, any> = {};
  beforeAll(async () => {
    // A business arriving from other software: its delivery notes go on from 501.
    bid = (await env.business(a.test, { numbering: { '200': 501 } })).id;
    for (const t of PAPERS) docs[t] = await issued(bid, paper(t));
  });

  it('numbers each in its own series (200 from the chosen start), with VAT for a murshe/company and nothing to allocate', () => {
    for (const t of PAPERS) {
      expect(docs[t]).toMatchObject({ docType: t, status: 'issued', docNumber: t === 200 ? 501 : 1, vatRateBp: 1800 });
      expect([docs[t].totalExVat, docs[t].vatAmount, docs[t].totalIncVat]).toEqual([49_500, 8_910, 58_410]);
      expect(docs[t].warnings).toEqual([]);
      expect(docs[t].allocationNumber ?? null).toBeNull();
    }
  });

  it('posts nothing: no journal entry, nothing in the VAT report or its lines, nothing in the income of the summary', async () => {
    const ids = PAPERS.map((t) => `'${docs[t].id}'`).join(', ');
    expect(await count(`SELECT count(*) AS n FROM journal_entries WHERE document_id IN (${ids})`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM journal_entries WHERE business_id = '${bid}'`)).toBe(0);
    const vat = await env.call('GET', `${base(bid)}/reports/vat?from=2026-03-01&to=2026-03-31`, { key: a.test });
    expect(vat.status, JSON.stringify(vat.body)).toBe(200);
    expect(vat.body.report).toMatchObject({ taxableSales: 0, outputVat: 0, zeroRatedOrExemptSales: 0, documents: 0 });
    const period = await env.call('GET', `${base(bid)}/reports/vat?period=2026-03`, { key: a.test });
    expect(period.status, JSON.stringify(period.body)).toBe(200);
    expect(period.body.report).toMatchObject({ taxableSales: 0, outputVat: 0 });
    const summary = await env.call('GET', `${base(bid)}/reports/summary?from=2026-03-01&to=2026-03-31`, { key: a.test });
    expect(summary.status, JSON.stringify(summary.body)).toBe(200);
    const r = summary.body.report;
    expect([r.income.totalExVat, r.outputVat, r.receipts.count]).toEqual([0, 0, 0]);
    // The summary counts every type, the papers too.
    const byType = Object.fromEntries(r.documents.byDocType.map((x: any) => [x.docType, [x.count, x.totalIncVat, x.taxDocument]]));
    for (const t of PAPERS) expect(byType[t]).toEqual([1, 58_410, false]);
    expect(byType[305]).toEqual([0, 0, true]);
  });

  it('the continuity report and the list filter know each type', async () => {
    const c = await env.call('GET', `${base(bid)}/reports/continuity`, { key: a.test });
    expect(c.status).toBe(200);
    expect(c.body.report.ok).toBe(true);
    for (const t of PAPERS) {
      expect(c.body.report.byDocType).toContainEqual(expect.objectContaining({ docType: t, count: 1, first: t === 200 ? 501 : 1, last: t === 200 ? 501 : 1 }));
      const list = await env.call('GET', `${base(bid)}/documents?docType=${t}`, { key: a.test });
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      expect(list.body.documents.map((d: any) => d.id)).toEqual([docs[t].id]);
    }
    const one = await env.call('GET', `${base(bid)}/reports/continuity?docType=210`, { key: a.test });
    expect(one.body.report.byDocType.map((x: any) => x.docType)).toEqual([210]);
    // A number in the search finds the papers numbered 1 too.
    const search = await env.call('GET', `${base(bid)}/documents?q=501`, { key: a.test });
    expect(search.body.documents.map((d: any) => d.id)).toEqual([docs[200].id]);
  });

  it('the issued row is frozen in the database', async () => {
    expect(await refusal(`UPDATE documents SET total_inc_vat = 1 WHERE id = '${docs[300].id}'`)).toMatch(/issued/);
    expect(await refusal(`DELETE FROM documents WHERE id = '${docs[100].id}'`)).toMatch(/issued/);
    // The database refuses a type the table does not have.
    const d = (await draft(bid, paper(100))).body.document;
    expect(await refusal(`UPDATE documents SET doc_type = 205 WHERE id = '${d.id}'`)).toMatch(/documents_doc_type_check/);
    await expect(env.sql('sandbox', `UPDATE documents SET doc_type = 210 WHERE id = '${d.id}'`)).resolves.toBeDefined();
    expect(await refusal(`INSERT INTO document_counters(business_id, doc_type, start_number) VALUES ('${bid}', 205, 1)`)).toMatch(
      /document_counters_doc_type_check/,
    );
  });

  it('document.issued for each; the render job prints origin then copy and emits document.pdf_ready; share hands out a copy after', async () => {
    const ids = PAPERS.map((t) => `'${docs[t].id}'`).join(', ');
    expect(await count(`SELECT count(*) AS n FROM outbox_events WHERE event = 'document.issued' AND data->>'documentId' IN (${ids})`)).toBe(5);
    await renderRunner(env).runDue('sandbox');
    expect(await count(`SELECT count(*) AS n FROM outbox_events WHERE event = 'document.pdf_ready' AND data->>'documentId' IN (${ids})`)).toBe(5);
    const origin = await env.call('POST', `${base(bid)}/documents/${docs[300].id}/print`, { key: a.test, body: { kind: 'origin' } });
    expect(origin.status).toBe(200);
    expect(origin.headers['x-print-variant']).toBe('origin');
    const text = await pdfText(origin.raw);
    for (const phrase of ["חשבונית עסקה מס' 1", 'זו אינה חשבונית מס', 'מקור', 'מע"מ 18%', '₪584.10']) expect(text).toContain(phrase);
    const again = await env.call('POST', `${base(bid)}/documents/${docs[300].id}/print`, { key: a.test, body: { kind: 'origin' } });
    expect(again.status).toBe(409);
    const share = await env.call('POST', `${base(bid)}/documents/${docs[300].id}/share`, { key: a.test });
    expect(share.status, JSON.stringify(share.body)).toBe(200);
    expect(JSON.stringify(share.body)).toContain('copy');
    const quote = await env.call('POST', `${base(bid)}/documents/${docs[10].id}/print`, { key: a.test });
    expect(await pdfText(quote.raw)).toContain("הצעת מחיר מס' 1");
  });

  it('an idempotency key replays the draft; payments and withholding are refused on a paper', async () => {
    const h = { 'idempotency-key': 'quote-77' };
    const one = await draft(bid, paper(10), h);
    const two = await draft(bid, paper(10), h);
    expect(one.status).toBe(201);
    expect(two.body.document.id).toBe(one.body.document.id);
    const paid = await draft(bid, paper(300, { payments: [{ method: 'cash', amount: 58_410 }] }));
    expect(paid.status).toBe(400);
    expect(paid.body).toMatchObject({ error: expect.stringContaining('a 300 transaction invoice carries no payments'), reason: 'validation' });
    const withheld = await draft(bid, paper(200, { withholdingAmount: 100 }));
    expect(withheld.status).toBe(400);
    expect(withheld.body.reason).toBe('validation');
    const empty = await draft(bid, paper(100, { lines: [] }));
    expect(empty.status).toBe(400);
    expect(empty.body.error).toContain('a 100 needs at least one line');
    // A paper has nothing to credit.
    const credit = await env.call('POST', `${base(bid)}/documents/${docs[200].id}/credit-note`, { key: a.test, body: {} });
    expect(credit.status).toBe(409);
    expect(credit.body).toMatchObject({
      error: 'a 200 delivery note is not a tax document and cannot be credited; goods coming back are a 210 return note',
      reason: 'conflict',
    });
  });
});

describe('an exempt dealer', () => {
  it('issues the papers without VAT, and is refused a tax invoice naming what it may issue', async () => {
    const bid = (await env.business(a.test, { dealerType: 'patur', taxId: TAX_IDS.person })).id;
    for (const t of PAPERS) {
      const d = await issued(bid, paper(t));
      expect([d.vatRateBp, d.vatAmount, d.totalIncVat]).toEqual([0, 0, 49_500]);
    }
    const refused = await draft(bid, paper(305));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error:
        'docType: a patur business issues price quotes (10), orders (100), delivery notes (200), return notes (210), transaction invoices (300), receipts (400) only',
      reason: 'doc_type_not_allowed',
    });
    expect(await count(`SELECT count(*) AS n FROM journal_entries WHERE business_id = '${bid}'`)).toBe(0);
  });
});
