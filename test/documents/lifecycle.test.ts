import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

const line = (over: Record<string, unknown> = {}) => ({ description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000, ...over });

async function draft(bid: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return env.call('POST', `/v1/businesses/${bid}/documents`, { key: a.test, body, headers });
}
async function issue(bid: string, id: string, body?: unknown) {
  return env.call('POST', `/v1/businesses/${bid}/documents/${id}/issue`, { key: a.test, body });
}

describe('drafts', () => {
  it('creates a 305 draft with computed preview totals and no number', async () => {
    const b = await env.business(a.test);
    const res = await draft(b.id, { docType: 305, party: { name: 'לקוח', taxId: TAX_IDS.person }, lines: [line({ quantity: 2.5 })] });
    expect(res.status).toBe(201);
    const d = res.body.document;
    expect(d.id).toMatch(/^doc_/);
    expect(d.status).toBe('draft');
    expect(d.docNumber).toBeNull();
    expect(d.totalExVat).toBe(25_000);
    expect(d.vatAmount).toBe(4_500); // 18% in 2026
    expect(d.totalIncVat).toBe(29_500);
    expect(d.lines[0]).toMatchObject({ unit: 'יחידה', lineDiscount: 0, amount: 25_000, sku: null });
    expect(d.documentDate).toBe('2026-03-01');
    expect(d.vatRateBp).toBeNull();
    expect(res.body.deduped).toBeUndefined();
    const counters = await env.sql('sandbox', `SELECT * FROM document_counters WHERE business_id = '${b.id}'`);
    expect(counters).toHaveLength(0);
  });

  it('dedupes on Idempotency-Key ≡ externalRef, 409 on a different body, 400 when they differ', async () => {
    const b = await env.business(a.test);
    const body = { docType: 305, lines: [line()] };
    const one = await draft(b.id, body, { 'idempotency-key': 'order-1' });
    const two = await draft(b.id, { ...body, externalRef: 'order-1' });
    expect(two.status).toBe(201);
    expect(two.body.deduped).toBe(true);
    expect(two.body.document.id).toBe(one.body.document.id);
    expect(two.body.document.externalRef).toBe('order-1');
    const diff = await draft(b.id, { ...body, note: 'x' }, { 'idempotency-key': 'order-1' });
    expect(diff.status).toBe(409);
    expect(diff.body.reason).toBe('conflict');
    const mismatch = await draft(b.id, { ...body, externalRef: 'a' }, { 'idempotency-key': 'b' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toMatch(/externalRef/);
  });

  it('two identical racing creates make one row', async () => {
    const b = await env.business(a.test);
    const body = { docType: 400, payments: [{ method: 'cash', amount: 500 }], externalRef: 'race-1' };
    const results = await Promise.all(Array.from({ length: 6 }, () => draft(b.id, body)));
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(new Set(results.map((r) => r.body.document.id)).size).toBe(1);
    expect(results.filter((r) => !r.body.deduped)).toHaveLength(1);
    const rows = await env.sql('sandbox', `SELECT id FROM documents WHERE business_id = '${b.id}'`);
    expect(rows).toHaveLength(1);
  });

  it('validates fields by path and dealer type', async () => {
    const b = await env.business(a.test);
    const bad = await draft(b.id, { docType: 305, lines: [{ description: 'x', quantity: 1, unitPriceExVat: 1.5 }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^body\.lines\[0\]\.unitPriceExVat/);
    const unknown = await draft(b.id, { docType: 305, lines: [line()], colour: 'red' });
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(400);
    expect(unknown.body.error).toMatch(/body\.colour/);
    const noLines = await draft(b.id, { docType: 305 });
    expect(noLines.status).toBe(400);
    const cn = await draft(b.id, { docType: 330, lines: [line()] });
    expect(cn.status).toBe(400);
    const zero = await draft(b.id, { docType: 305, lines: [line()], vatRateBp: 0 });
    expect(zero.status).toBe(400);
    expect(zero.body.error).toMatch(/vatExemptionReason/);
    const note = await draft(b.id, { docType: 305, lines: [line()], note: 'x'.repeat(501) });
    expect(note.status).toBe(400);
    const party = await draft(b.id, { docType: 305, lines: [line()], party: { partyId: 'pty_nope' } });
    expect(party.status).toBe(400);
    expect(party.body.error).toMatch(/body\.party\.partyId/);
    const patur = await env.business(a.test, { dealerType: 'patur', taxId: TAX_IDS.person });
    const notAllowed = await draft(patur.id, { docType: 305, lines: [line()] });
    expect(notAllowed.status).toBe(400);
    expect(notAllowed.body.reason).toBe('doc_type_not_allowed');
  });

  it('patches (docType optional) and deletes drafts; issued ones answer 409 not_draft', async () => {
    const b = await env.business(a.test);
    const d = (await draft(b.id, { docType: 305, lines: [line()] })).body.document;
    const p = await env.call('PATCH', `/v1/businesses/${b.id}/documents/${d.id}`, { key: a.test, body: { note: 'שלום', discountAmount: 1000 } });
    expect(p.status).toBe(200);
    expect(p.body.document).toMatchObject({ note: 'שלום', discountAmount: 1000, totalExVat: 9000, vatAmount: 1620, docType: 305 });
    const d2 = (await draft(b.id, { docType: 305, lines: [line()] })).body.document;
    const del = await env.call('DELETE', `/v1/businesses/${b.id}/documents/${d2.id}`, { key: a.test });
    expect(del.status).toBe(200);
    expect((await env.call('GET', `/v1/businesses/${b.id}/documents/${d2.id}`, { key: a.test })).status).toBe(404);
    expect((await issue(b.id, d.id)).status).toBe(201);
    const p2 = await env.call('PATCH', `/v1/businesses/${b.id}/documents/${d.id}`, { key: a.test, body: { note: 'x' } });
    expect(p2.status).toBe(409);
    expect(p2.body.reason).toBe('not_draft');
    const del2 = await env.call('DELETE', `/v1/businesses/${b.id}/documents/${d.id}`, { key: a.test });
    expect(del2.status).toBe(409);
    expect(del2.body.reason).toBe('not_draft');
  });
});

describe('issue', () => {
  it('numbers each series gaplessly from its start, freezes the snapshot, audits, emits and enqueues', async () => {
    const b = await env.business(a.test, { numbering: { '305': 1001 } });
    const pty = await env.call('POST', `/v1/businesses/${b.id}/parties`, { key: a.test, body: { name: 'קונה בע"מ', taxId: TAX_IDS.company2 } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await draft(b.id, { docType: 305, party: { partyId: pty.body.party.id }, lines: [line()] })).body.document.id);
    }
    const r320 = (await draft(b.id, { docType: 320, lines: [line()], payments: [{ method: 'card', amount: 11_800, cardCompany: '1' }] })).body.document;
    const numbers = [];
    for (const id of ids) numbers.push((await issue(b.id, id)).body.document.docNumber);
    expect(numbers).toEqual([1001, 1002, 1003]);
    const i320 = await issue(b.id, r320.id);
    expect(i320.status).toBe(201);
    expect(i320.body.document.docNumber).toBe(1);
    expect(i320.body.document.payments[0].method).toBe(3);

    const again = await issue(b.id, ids[0]);
    expect(again.status).toBe(201);
    expect(again.body.deduped).toBe(true);
    expect(again.body.document.docNumber).toBe(1001);

    const doc = again.body.document;
    expect(doc).toMatchObject({ status: 'issued', vatRateBp: 1800, priceMode: 'net', cancelledByDocumentId: null, files: null, printCount: 0, warnings: [] });
    expect(doc.allocation.status).toBe('not_required');
    expect(doc.issuedAt).toBe('2026-03-01T08:00:00.000Z');
    // Editing the party later does not change the issued document.
    await env.call('PATCH', `/v1/businesses/${b.id}/parties/${pty.body.party.id}`, { key: a.test, body: { name: 'שם חדש' } });
    const read = await env.call('GET', `/v1/businesses/${b.id}/documents/${ids[0]}`, { key: a.test });
    expect(read.body.document.party.name).toBe('קונה בע"מ');
    const [row] = await env.sql<{ snapshot: any }>('sandbox', `SELECT snapshot FROM documents WHERE id = '${ids[0]}'`);
    expect(row.snapshot).toMatchObject({
      docType: 305,
      docNumber: 1001,
      dealer: { taxId: TAX_IDS.company, dealerType: 'company' },
      vatRateBp: 1800,
      linkedDocument: null,
    });
    expect(row.snapshot.branding.template).toBe('classic');
    const events = await env.sql<{ data: any }>(
      'sandbox',
      `SELECT data FROM outbox_events WHERE event = 'document.issued' AND business_id = '${b.id}' ORDER BY created_at, id`,
    );
    expect(events).toHaveLength(4);
    expect(events.find((e) => e.data.documentId === ids[0])!.data).toMatchObject({
      documentId: ids[0],
      docType: 305,
      docNumber: 1001,
      totalIncVat: 11_800,
      partyName: 'קונה בע"מ',
      externalRef: null,
    });
    const jobs = await env.sql('sandbox', `SELECT * FROM jobs WHERE kind = 'document.render' AND business_id = '${b.id}'`);
    expect(jobs).toHaveLength(4);
    const audits = await env.sql('sandbox', `SELECT * FROM audit_log WHERE business_id = '${b.id}' AND action = 'document.issue'`);
    expect(audits).toHaveLength(4);
    // Counted per business (the business's rows are serialized by its audit chain anyway; an account-wide
    // row would serialize every business of the account), summed per account by GET /usage.
    const usage = await env.sql<{ count: number }>('sandbox', `SELECT count FROM usage_daily WHERE subject = 'biz:${b.id}' AND metric = 'documents_issued'`);
    expect(Number(usage[0].count)).toBe(4);
    const perDay = (await env.call('GET', '/v1/usage', { key: a.test })).body;
    expect(JSON.stringify(perDay)).toMatch(/"documentsIssued":[4-9]/);
  });

  it('guards: payments mismatch, dealer type, approval, allocation (strict and warning)', async () => {
    const b = await env.business(a.test);
    const mism = (await draft(b.id, { docType: 320, lines: [line()], payments: [{ method: 1, amount: 100 }] })).body.document;
    const r = await issue(b.id, mism.id);
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('payments_mismatch');
    const noPay = (await draft(b.id, { docType: 400 })).body.document;
    expect((await issue(b.id, noPay.id)).body.reason).toBe('payments_mismatch');
    // Withholding: 320 payments = total − withholding.
    const wh = (await draft(b.id, { docType: 320, lines: [line()], withholdingAmount: 800, payments: [{ method: 4, amount: 11_000 }] })).body.document;
    expect((await issue(b.id, wh.id)).status).toBe(201);

    const big = { docType: 305, party: { name: 'עוסק', taxId: TAX_IDS.company2 }, lines: [line({ unitPriceExVat: 1_500_000 })] };
    const warn = (await issue(b.id, (await draft(b.id, big)).body.document.id)).body.document;
    expect(warn.allocation.status).toBe('pending');
    expect(warn.warnings.map((w: any) => w.code)).toContain('allocation_missing');
    expect(await env.sql('sandbox', `SELECT 1 FROM jobs WHERE kind = 'document.allocation' AND ref_id = '${warn.id}'`)).toHaveLength(1);
    const held = (await issue(b.id, (await draft(b.id, { ...big, allocationNumber: '123456789' })).body.document.id)).body.document;
    expect(held.allocation.status).toBe('granted');
    expect(held.allocationNumber).toBe('123456789');

    await env.call('PATCH', `/v1/businesses/${b.id}`, { key: a.test, body: { requireAllocation: true } });
    const strict = await issue(b.id, (await draft(b.id, big)).body.document.id);
    expect(strict.status).toBe(422);
    expect(strict.body.reason).toBe('allocation_required');

    const pending = await env.business(a.test);
    const pd = (await draft(pending.id, { docType: 305, lines: [line()] })).body.document;
    await env.sql('sandbox', `UPDATE businesses SET approval_status = 'pending' WHERE id = '${pending.id}'`);
    const ap = await issue(pending.id, pd.id);
    expect(ap.status).toBe(403);
    expect(ap.body.reason).toBe('approval_required');

    // A dealer type that changed cannot be issued against: patur drafts of 305 are refused at issue.
    const m = await env.business(a.test, { dealerType: 'murshe', taxId: TAX_IDS.person2 });
    const md = (await draft(m.id, { docType: 305, lines: [line()] })).body.document;
    await env.call('PATCH', `/v1/businesses/${m.id}`, { key: a.test, body: { dealerType: 'patur' } });
    const dt = await issue(m.id, md.id);
    expect(dt.status).toBe(422);
    expect(dt.body.reason).toBe('doc_type_not_allowed');
  });

  it('exempt dealers issue 400 with no VAT; anonymous receipts work', async () => {
    const b = await env.business(a.test, { dealerType: 'patur', taxId: TAX_IDS.person3 });
    const d = (
      await draft(b.id, {
        docType: 400,
        payments: [
          { method: 'bit', amount: 5000 },
          { method: 'check', amount: 2000, checkNumber: '77', bankCode: '12' },
        ],
      })
    ).body.document;
    const r = await issue(b.id, d.id);
    expect(r.status).toBe(201);
    expect(r.body.document).toMatchObject({ docNumber: 1, totalIncVat: 7000, vatAmount: 0, vatRateBp: 0, party: null });
    expect(r.body.document.payments.map((p: any) => p.method)).toEqual([91, 2]);
  });

  it('monthly ceiling answers 429 limit_reached', async () => {
    const acct = await env.account();
    const { setAccountLimits } = await import('../../src/accounts/accounts.ts');
    await setAccountLimits(env.s.databases.live.db, acct.id, { maxDocsPerMonth: 2 });
    const b = await env.business(acct.test);
    const mk = async () =>
      (await env.call('POST', `/v1/businesses/${b.id}/documents`, { key: acct.test, body: { docType: 305, lines: [line()] } })).body.document.id;
    const iss = async (id: string) => env.call('POST', `/v1/businesses/${b.id}/documents/${id}/issue`, { key: acct.test });
    expect((await iss(await mk())).status).toBe(201);
    expect((await iss(await mk())).status).toBe(201);
    const third = await iss(await mk());
    expect(third.status).toBe(429);
    expect(third.body.reason).toBe('limit_reached');
  });

  it('the monthly ceiling reads a counter kept in the issuing transaction: credit notes count, a refused issue does not, the draft stays a draft', async () => {
    const acct = await env.account();
    const { setAccountLimits } = await import('../../src/accounts/accounts.ts');
    await setAccountLimits(env.s.databases.live.db, acct.id, { maxDocsPerMonth: 3 });
    const b = await env.business(acct.test);
    const mk = async () =>
      (await env.call('POST', `/v1/businesses/${b.id}/documents`, { key: acct.test, body: { docType: 305, lines: [line()] } })).body.document.id;
    const iss = async (id: string) => env.call('POST', `/v1/businesses/${b.id}/documents/${id}/issue`, { key: acct.test });
    const first = await iss(await mk());
    expect((await iss(await mk())).status).toBe(201);
    const credit = await env.call('POST', `/v1/businesses/${b.id}/documents/${first.body.document.id}/credit-note`, { key: acct.test, body: {} });
    expect(credit.status).toBe(201);
    const month = async () =>
      (await env.sql<{ count: string }>('sandbox', `SELECT count FROM document_month_counts WHERE business_id = '${b.id}'`)).map((r) => Number(r.count));
    expect(await month()).toEqual([3]);
    const refusedId = await mk();
    const refused = await iss(refusedId);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/ceiling of 3 issued documents this month/);
    expect(await month()).toEqual([3]);
    expect((await env.call('GET', `/v1/businesses/${b.id}/documents/${refusedId}`, { key: acct.test })).body.document).toMatchObject({
      status: 'draft',
      docNumber: null,
    });
    // The number the refused issue took was given back: the next 305 after raising the ceiling is 3.
    await setAccountLimits(env.s.databases.live.db, acct.id, { maxDocsPerMonth: 4 });
    expect((await iss(refusedId)).body.document.docNumber).toBe(3);
    const [{ n }] = await env.sql<{ n: string }>('sandbox', `SELECT count(*) AS n FROM documents WHERE business_id = '${b.id}' AND status = 'issued'`);
    expect(await month()).toEqual([Number(n)]);
  });
});

describe('issue options and limits', () => {
  it('freezes a branding override given in the issue body, leaving the business branding alone', async () => {
    const b = await env.business(a.test, { branding: { tagline: 'רגיל', template: 'classic' } });
    const d = (await draft(b.id, { docType: 305, lines: [line()] })).body.document;
    const r = await issue(b.id, d.id, { branding: { template: 'stripe', accentColor: '#aa0011' } });
    expect(r.status).toBe(201);
    const [row] = await env.sql<{ snapshot: any }>('sandbox', `SELECT snapshot FROM documents WHERE id = '${d.id}'`);
    expect(row.snapshot.branding).toMatchObject({ template: 'stripe', accentColor: '#AA0011', tagline: 'רגיל' });
    const biz = await env.call('GET', `/v1/businesses/${b.id}`, { key: a.test });
    expect(biz.body.business.branding.template).toBe('classic');
    const bad = await issue(b.id, (await draft(b.id, { docType: 305, lines: [line()] })).body.document.id, { colour: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/body\.colour/);
  });

  it('the daily backstop of 300 issues per business answers 429 limit_reached and takes no number', async () => {
    const b = await env.business(a.test);
    await env.sql('sandbox', `INSERT INTO usage_daily(day, subject, metric, count) VALUES ('2026-03-01', 'biz:${b.id}', 'documents_opened', 300)`);
    const d = (await draft(b.id, { docType: 305, lines: [line()] })).body.document;
    const r = await issue(b.id, d.id);
    expect(r.status).toBe(429);
    expect(r.body.reason).toBe('limit_reached');
    expect(await env.sql('sandbox', `SELECT 1 FROM document_counters WHERE business_id = '${b.id}' AND last_number IS NOT NULL`)).toHaveLength(0);
    env.clock.advance(24 * 3600_000);
    const next = await issue(b.id, d.id);
    expect(next.status).toBe(201);
    expect(next.body.document.docNumber).toBe(1);
  });

  it('a deactivated business refuses drafts and issue with 403', async () => {
    const b = await env.business(a.test);
    const d = (await draft(b.id, { docType: 305, lines: [line()] })).body.document;
    await env.call('POST', `/v1/businesses/${b.id}/deactivate`, { key: a.test });
    const r = await issue(b.id, d.id);
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('forbidden');
    expect((await draft(b.id, { docType: 305, lines: [line()] })).status).toBe(403);
    expect((await env.call('GET', `/v1/businesses/${b.id}/documents/${d.id}`, { key: a.test })).status).toBe(200);
  });

  it("another account's business and documents are not found", async () => {
    const b = await env.business(a.test);
    const d = (await draft(b.id, { docType: 305, lines: [line()] })).body.document;
    const other = await env.account();
    expect((await env.call('GET', `/v1/businesses/${b.id}/documents/${d.id}`, { key: other.test })).status).toBe(404);
    const mine = await env.business(other.test);
    expect((await env.call('POST', `/v1/businesses/${mine.id}/documents/${d.id}/issue`, { key: other.test })).status).toBe(404);
    expect((await env.call('GET', `/v1/businesses/${b.id}/documents/${d.id}`, { key: a.live })).status).toBe(404);
  });
});

describe('credit notes', () => {
  it('305 → linked 330 mirroring amounts and rate; second → 409; draft → 409 not_draft', async () => {
    const b = await env.business(a.test, { defaultVatRateBp: 1700 });
    const inv = (
      await issue(b.id, (await draft(b.id, { docType: 305, lines: [line({ quantity: 3, lineDiscount: 500 })], discountAmount: 1000 })).body.document.id)
    ).body.document;
    const cn = await env.call('POST', `/v1/businesses/${b.id}/documents/${inv.id}/credit-note`, { key: a.test, body: { reason: 'החזרה' } });
    expect(cn.status).toBe(201);
    expect(cn.body.document).toMatchObject({
      docType: 330,
      docNumber: 1,
      status: 'issued',
      linkedDocumentId: inv.id,
      note: 'החזרה',
      vatRateBp: 1700,
      totalExVat: inv.totalExVat,
      vatAmount: inv.vatAmount,
      totalIncVat: inv.totalIncVat,
      discountAmount: 1000,
    });
    const orig = await env.call('GET', `/v1/businesses/${b.id}/documents/${inv.id}`, { key: a.test });
    expect(orig.body.document.cancelledByDocumentId).toBe(cn.body.document.id);
    expect(orig.body.document.status).toBe('issued');
    const twice = await env.call('POST', `/v1/businesses/${b.id}/documents/${inv.id}/credit-note`, { key: a.test });
    expect(twice.status).toBe(409);
    expect(twice.body.reason).toBe('conflict');
    const d = (await draft(b.id, { docType: 305, lines: [line()] })).body.document;
    const dn = await env.call('POST', `/v1/businesses/${b.id}/documents/${d.id}/credit-note`, { key: a.test });
    expect(dn.status).toBe(409);
    expect(dn.body.reason).toBe('not_draft');
    const ev = await env.sql<{ data: any }>(
      'sandbox',
      `SELECT data FROM outbox_events WHERE event = 'document.issued' AND data->>'documentId' = '${cn.body.document.id}'`,
    );
    expect(ev[0].data).toMatchObject({ docType: 330, docNumber: 1, totalIncVat: inv.totalIncVat });
    const cc = await env.call('POST', `/v1/businesses/${b.id}/documents/${cn.body.document.id}/credit-note`, { key: a.test });
    expect(cc.status).toBe(409);
    const [snap] = await env.sql<{ snapshot: any }>('sandbox', `SELECT snapshot FROM documents WHERE id = '${cn.body.document.id}'`);
    expect(snap.snapshot.linkedDocument).toEqual({ id: inv.id, docType: 305, docNumber: 1 });
  });

  it('400 → negative receipt in the 400 series', async () => {
    const b = await env.business(a.test);
    const rc = (await issue(b.id, (await draft(b.id, { docType: 400, payments: [{ method: 'cash', amount: 3000 }], withholdingAmount: 200 })).body.document.id))
      .body.document;
    const cn = await env.call('POST', `/v1/businesses/${b.id}/documents/${rc.id}/credit-note`, { key: a.test });
    expect(cn.status).toBe(201);
    expect(cn.body.document).toMatchObject({ docType: 400, docNumber: 2, totalIncVat: -3000, withholdingAmount: -200, linkedDocumentId: rc.id });
    expect(cn.body.document.payments[0].amount).toBe(-3000);
  });
});

describe('list and continuity', () => {
  it('filters, pages and counts', async () => {
    const b = await env.business(a.test);
    const pty = (await env.call('POST', `/v1/businesses/${b.id}/parties`, { key: a.test, body: { name: 'משה כהן' } })).body.party;
    const d1 = (await draft(b.id, { docType: 305, party: { partyId: pty.id }, lines: [line({ description: 'שיפוץ מטבח' })], externalRef: 'shop-1' })).body
      .document;
    env.clock.advance(1000);
    const d2 = (
      await draft(b.id, { docType: 400, party: { name: 'דנה' }, payments: [{ method: 1, amount: 100 }], documentDate: '2026-02-10', externalRef: 'shop-2' })
    ).body.document;
    env.clock.advance(1000);
    const d3 = (await draft(b.id, { docType: 305, lines: [line()], externalRef: 'other-1' })).body.document;
    await issue(b.id, d1.id);
    const list = async (qs: string) => (await env.call('GET', `/v1/businesses/${b.id}/documents?${qs}`, { key: a.test })).body;
    expect((await list('')).documents.map((d: any) => d.id)).toEqual([d3.id, d2.id, d1.id]);
    expect((await list('status=issued')).documents.map((d: any) => d.id)).toEqual([d1.id]);
    expect((await list('docType=400')).documents.map((d: any) => d.id)).toEqual([d2.id]);
    expect((await list('from=2026-02-01&to=2026-02-28')).documents.map((d: any) => d.id)).toEqual([d2.id]);
    expect((await list('externalRefPrefix=shop-')).documents).toHaveLength(2);
    expect((await list('q=מטבח')).documents.map((d: any) => d.id)).toEqual([d1.id]);
    expect((await list('q=דנה')).documents.map((d: any) => d.id)).toEqual([d2.id]);
    expect((await list('q=1&status=issued')).documents.map((d: any) => d.id)).toEqual([d1.id]);
    expect((await list(`partyId=${pty.id}`)).documents.map((d: any) => d.id)).toEqual([d1.id]);
    expect((await list('take=1&skip=1')).documents.map((d: any) => d.id)).toEqual([d2.id]);
    expect((await list(`before=${encodeURIComponent(d2.createdAt)}`)).documents.map((d: any) => d.id)).toEqual([d1.id]);
    const counted = await list('counts=1&status=draft');
    expect(counted.counts).toEqual({ total: 3, byStatus: { draft: 2, issued: 1 } });
    const badTake = await env.call('GET', `/v1/businesses/${b.id}/documents?take=abc`, { key: a.test });
    expect(badTake.status).toBe(400);
  });

  it('reports continuity from the stored rows', async () => {
    const b = await env.business(a.test);
    for (let i = 0; i < 3; i++) await issue(b.id, (await draft(b.id, { docType: 305, lines: [line()] })).body.document.id);
    const r = await env.call('GET', `/v1/businesses/${b.id}/reports/continuity`, { key: a.test });
    expect(r.status).toBe(200);
    expect(r.body.report.ok).toBe(true);
    expect(r.body.report.byDocType.find((e: any) => e.docType === 305)).toEqual({
      docType: 305,
      first: 1,
      last: 3,
      count: 3,
      expectedFirst: 1,
      counter: 3,
      gaps: [],
      gapCount: 0,
      duplicates: [],
      outOfSeries: [],
    });
    const only = await env.call('GET', `/v1/businesses/${b.id}/reports/continuity?docType=330`, { key: a.test });
    expect(only.body.report.byDocType).toEqual([
      { docType: 330, first: null, last: null, count: 0, expectedFirst: 1, counter: null, gaps: [], gapCount: 0, duplicates: [], outOfSeries: [] },
    ]);
  });

  it('needs the documents scope for documents and export for continuity', async () => {
    const b = await env.business(a.test);
    const k = await a.mint({ mode: 'test', scopes: ['businesses'] });
    const r = await env.call('GET', `/v1/businesses/${b.id}/documents`, { key: k.secret });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe('forbidden');
    const c = await env.call('GET', `/v1/businesses/${b.id}/reports/continuity`, { key: k.secret });
    expect(c.status).toBe(403);
  });
});
