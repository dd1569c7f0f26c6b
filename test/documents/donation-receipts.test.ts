/**
 * Donation receipts (405) of a non-profit (issue 30 step 3; decisions.md "Document types beyond the four",
 * israel-tax.md §7): only an ngo issues them, only on a day its section 46 approval is in force, to a donor
 * named by ID number; they post as donation income (not to the VAT report), export as C100 + D120 and verify.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { verifyExportThroughApi } from '../verifier/api.ts';
import { formatDefect, readExportZip } from '../verifier/openfrmt-verifier.ts';
import { BKMV_LAYOUTS } from '../verifier/spec-layouts.ts';
import { verifyBooks } from '../../src/documents/audit-check.ts';

/** A field of a BKMVDATA record, by the spec's layout (test/verifier/spec-layouts.ts). */
function field(rec: string, code: 'C100' | 'D120', id: number): string {
  const [, from, to] = BKMV_LAYOUTS[code].fields.find((f) => f[0] === id)!;
  return rec.slice(from - 1, to);
}

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

const APPROVAL = { number: '4512345', validFrom: '2026-01-01', validTo: '2026-12-31' };
const base = (bid: string) => `/v1/businesses/${bid}`;
const donation = (over: Record<string, unknown> = {}) => ({
  docType: 405,
  party: { name: 'ישראל ישראלי', taxId: TAX_IDS.person2 },
  payments: [{ method: 'transfer', amount: 36_000 }],
  ...over,
});
const draft = (bid: string, body: Record<string, unknown>) => env.call('POST', `${base(bid)}/documents`, { key: a.test, body });
const issue = (bid: string, id: string) => env.call('POST', `${base(bid)}/documents/${id}/issue`, { key: a.test });
const count = async (sql: string) => Number((await env.sql<{ n: number }>('sandbox', sql))[0].n);
const ngo = (over: Record<string, unknown> = {}) =>
  env.business(a.test, { name: 'עמותת שולחן פתוח', taxId: TAX_IDS.ngo, dealerType: 'ngo', section46Approval: APPROVAL, ...over });

async function issued(bid: string, body: Record<string, unknown>) {
  const d = await draft(bid, body);
  expect(d.status, JSON.stringify(d.body)).toBe(201);
  const i = await issue(bid, d.body.document.id);
  expect(i.status, JSON.stringify(i.body)).toBe(201);
  return i.body.document;
}

describe('the section 46 approval is a business field', () => {
  it('is set on an ngo, read back, replaced and cleared; refused on another dealer or backwards', async () => {
    const b = await ngo();
    expect(b.section46Approval).toEqual(APPROVAL);
    const next = { number: '4512346', validFrom: '2027-01-01', validTo: '2027-12-31' };
    const p = await env.call('PATCH', base(b.id), { key: a.test, body: { section46Approval: next } });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body.business.section46Approval).toEqual(next);
    const cleared = await env.call('PATCH', base(b.id), { key: a.test, body: { section46Approval: null } });
    expect(cleared.body.business.section46Approval).toBeNull();

    const company = await env.call('POST', '/v1/businesses', {
      key: a.test,
      body: { name: 'חברה', taxId: TAX_IDS.company, dealerType: 'company', section46Approval: APPROVAL },
    });
    expect(company.status).toBe(400);
    expect(company.body.error).toBe('body.section46Approval: only an ngo holds a section 46 approval; this business is company');
    const backwards = await env.call('PATCH', base(b.id), { key: a.test, body: { section46Approval: { ...APPROVAL, validTo: '2025-12-31' } } });
    expect(backwards.status).toBe(400);
    expect(backwards.body.error).toBe('body.section46Approval.validTo: is before validFrom (2026-01-01)');
  });
});

describe('an ngo issues donation receipts', () => {
  let bid: string;
  let receipt: any;
  beforeAll(async () => {
    bid = (await ngo()).id;
    receipt = await issued(bid, donation());
  });

  it('numbers them in their own series, totals the payments, no VAT', () => {
    expect(receipt).toMatchObject({ docType: 405, docNumber: 1, status: 'issued', vatRateBp: 0, vatAmount: 0, totalIncVat: 36_000 });
    expect(receipt.party.taxId).toBe(TAX_IDS.person2);
  });

  it('answers what it stored; the audit trail and the books verify', async () => {
    const got = await env.call('GET', `${base(bid)}/documents/${receipt.id}`, { key: a.test });
    expect(receipt).toEqual(got.body.document);
    expect((await verifyBooks(env.db.sandbox.db)).problems).toEqual([]);
  });

  it('freezes the approval in force into its snapshot', async () => {
    const [row] = await env.sql<{ s: any }>('sandbox', `SELECT snapshot->'section46' AS s FROM documents WHERE id = '${receipt.id}'`);
    expect(row.s).toEqual(APPROVAL);
  });

  it('posts Dr the bank / Cr donation income (4200); the VAT report sees nothing', async () => {
    const lines = await env.sql<{ account_code: string; side: number; amount: number }>(
      'sandbox',
      `SELECT l.account_code, l.side, l.amount FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
        WHERE e.document_id = '${receipt.id}' ORDER BY l.side`,
    );
    expect(lines.map((l) => [l.account_code, Number(l.side), Number(l.amount)])).toEqual([
      ['1230', 1, 36_000],
      ['4200', 2, 36_000],
    ]);
    const [acct] = await env.sql<{ name: string; kind: string }>(
      'sandbox',
      `SELECT name, kind FROM ledger_accounts WHERE business_id = '${bid}' AND code = '4200'`,
    );
    expect(acct).toEqual({ name: 'הכנסות מתרומות', kind: 'revenue' });
    const vat = await env.call('GET', `${base(bid)}/reports/vat?from=2026-03-01&to=2026-03-31`, { key: a.test });
    expect(vat.status, JSON.stringify(vat.body)).toBe(200);
    expect(vat.body.report).toMatchObject({ taxableSales: 0, outputVat: 0, zeroRatedOrExemptSales: 0, documents: 0 });
  });

  it('exports as C100 + D120 with the donor in 1215, and the independent verifier passes it and its credit', async () => {
    const credit = await env.call('POST', `${base(bid)}/documents/${receipt.id}/credit-note`, { key: a.test, body: { reason: 'התרומה הוחזרה' } });
    expect(credit.status, JSON.stringify(credit.body)).toBe(201);
    expect(credit.body.document).toMatchObject({ docType: 405, docNumber: 2, totalIncVat: -36_000, linkedDocumentId: receipt.id });
    await issued(bid, donation({ party: { name: 'חברת תורמים בע"מ', taxId: TAX_IDS.company2 }, payments: [{ method: 'card', amount: 10_000 }] }));
    env.clock.advance(60_000);
    const range = { from: '2026-01-01', to: '2026-12-31' };
    const ex = await env.call('POST', `${base(bid)}/exports/openfrmt`, { key: a.test, body: range });
    expect(ex.status, JSON.stringify(ex.body)).toBe(201);
    const v = await verifyExportThroughApi(env, a.test, bid, { fileId: ex.body.file.id, ...range });
    expect(v.defects.map(formatDefect)).toEqual([]);
    expect(v.ledger).toBeDefined();
    const { dir, files } = readExportZip(v.zip);
    const bk = Buffer.from(files[`${dir}BKMVDATA.TXT`]).toString('latin1').split('\r\n');
    const c100 = bk.filter((r) => r.startsWith('C100') && field(r, 'C100', 1203) === '405');
    expect(c100.map((r) => field(r, 'C100', 1215))).toEqual([TAX_IDS.person2, TAX_IDS.person2, TAX_IDS.company2]);
    expect(bk.filter((r) => r.startsWith('D120') && field(r, 'D120', 1303) === '405')).toHaveLength(3);
    expect(bk.filter((r) => r.startsWith('D110'))).toHaveLength(0);
  });
});

describe('refusals, nothing half-written', () => {
  it('a 405 without an approval in force on its date: 422 donation_approval_missing', async () => {
    const none = await ngo({ section46Approval: null });
    const d = await draft(none.id, donation());
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    const r = await issue(none.id, d.body.document.id);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      reason: 'donation_approval_missing',
      error:
        "a 405 donation receipt dated 2026-03-01 needs the organisation's section 46 approval in force on that day; it has none: set section46Approval (number, validFrom, validTo) on the business",
    });
    const expired = await ngo({ section46Approval: { number: '77', validFrom: '2025-01-01', validTo: '2025-12-31' } });
    const e = await draft(expired.id, donation());
    const er = await issue(expired.id, e.body.document.id);
    expect(er.status).toBe(422);
    expect(er.body.error).toContain('its approval 77 is valid from 2025-01-01 to 2025-12-31');
    // A draft dated inside the approval is issued.
    const dated = await draft(expired.id, donation({ documentDate: '2025-12-30' }));
    expect((await issue(expired.id, dated.body.document.id)).status).toBe(201);
    // Nothing was written for the refused ones: still drafts, no number taken, no entry, no job.
    for (const id of [d.body.document.id, e.body.document.id]) {
      const [row] = await env.sql<{ status: string; doc_number: number | null }>('sandbox', `SELECT status, doc_number FROM documents WHERE id = '${id}'`);
      expect(row).toEqual({ status: 'draft', doc_number: null });
      expect(await count(`SELECT count(*) AS n FROM journal_entries WHERE document_id = '${id}'`)).toBe(0);
      expect(await count(`SELECT count(*) AS n FROM jobs WHERE ref_id = '${id}'`)).toBe(0);
      expect(await count(`SELECT count(*) AS n FROM outbox_events WHERE event = 'document.issued' AND data->>'documentId' = '${id}'`)).toBe(0);
    }
    expect(await count(`SELECT count(*) AS n FROM document_counters WHERE business_id = '${none.id}' AND last_number IS NOT NULL`)).toBe(0);
  });

  it("a 405 needs the donor's ID number, check digit and all", async () => {
    const b = await ngo();
    const anonymous = await draft(b.id, donation({ party: { name: 'תורם אנונימי' } }));
    expect(anonymous.status).toBe(400);
    expect(anonymous.body).toMatchObject({
      reason: 'validation',
      error:
        "body.party.taxId: a 405 donation receipt needs the donor's ID number (9 digits with its check digit): the digital donation system credits the donor by it",
    });
    const bad = await draft(b.id, donation({ party: { name: 'תורם', taxId: '123456789' } }));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ reason: 'validation', error: 'body.party.taxId: check digit does not match' });
    // A saved party without an ID number is refused too; with one it is the donor.
    const saved = await env.call('POST', `${base(b.id)}/parties`, { key: a.test, body: { name: 'תורם קבוע' } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    const noId = await draft(b.id, donation({ party: { partyId: saved.body.party.id } }));
    expect(noId.status).toBe(400);
    expect(noId.body.error).toContain("needs the donor's ID number");
    expect(await count(`SELECT count(*) AS n FROM documents WHERE business_id = '${b.id}'`)).toBe(0);
  });

  it('a business that is not an ngo is refused a 405 with doc_type_not_allowed, naming what it issues', async () => {
    for (const [dealerType, taxId] of [
      ['company', TAX_IDS.company],
      ['patur', TAX_IDS.person],
    ] as const) {
      const b = await env.business(a.test, { dealerType, taxId });
      const r = await draft(b.id, donation());
      expect(r.status).toBe(400);
      expect(r.body.reason).toBe('doc_type_not_allowed');
      expect(r.body.error).toMatch(new RegExp(`^docType: a ${dealerType} business issues .*receipts \\(400\\) only$`));
    }
  });
});
