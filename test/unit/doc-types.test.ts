// The document types' table (src/documents/doc-types.ts): every row complete and consistent, and the
// modules that decide by type (totals, drafts, credit notes, export, journal, allocation, PDF,
// OpenAPI) agreeing with it.
import { describe, expect, it } from 'vitest';
import {
  DOC_TYPES,
  DOC_TYPE_CODES,
  DOC_TYPE_RULES,
  DRAFT_DOC_TYPE_CODES,
  docTypeAllowed,
  docTypeRefusal,
  docTypeRuleOf,
  type DocType,
} from '../../src/documents/doc-types.ts';
import { DEALER_TYPES } from '../../src/businesses/dealer-types.ts';
import { buyerTaxIdRequired, computeTotals, paymentsProblem, resolveVatRateBp } from '../../src/documents/totals.ts';
import { checkDraft, type DraftFields } from '../../src/documents/draft-input.ts';
import { reversalOf } from '../../src/documents/credit-note.ts';
import { DocType as DocTypeSchema, DraftCreate } from '../../src/documents/schemas.ts';
import { exportDocument } from '../../src/exports/map-document.ts';
import { journalOfDocument } from '../../src/ledger/journal.ts';
import { documentEntryOf } from '../../src/ledger/post.ts';
import { DONATION_INCOME, OUTPUT_VAT, paymentAccount } from '../../src/ledger/chart.ts';
import { chartOf } from '../../src/ledger/store.ts';
import { allocationEligibility } from '../../src/documents/allocation-eligibility.ts';
import { DOC_TITLES } from '../../src/pdf/hebrew.ts';
import { EN_DOC_TITLES } from '../../src/pdf/english.ts';
import { infoLines, isReceiptStyle } from '../../src/pdf/wording.ts';
import { sampleModel } from '../../src/pdf/samples.ts';
import type { DocumentPayment, DocumentSnapshot } from '../../src/documents/snapshot-types.ts';

const rows = DOC_TYPE_RULES;

describe('the table', () => {
  it('has one row per code, keyed by its code, in ascending order, codes unique', () => {
    expect(Object.keys(DOC_TYPES).map(Number)).toEqual(DOC_TYPE_CODES);
    for (const [key, row] of Object.entries(DOC_TYPES)) expect(row.code).toBe(Number(key));
    expect(new Set(DOC_TYPE_CODES).size).toBe(DOC_TYPE_CODES.length);
    expect([...DOC_TYPE_CODES].sort((a, b) => a - b)).toEqual(DOC_TYPE_CODES);
    // The codes the spec names (service-api.md Documents).
    expect(DOC_TYPE_CODES).toEqual([10, 100, 200, 210, 300, 305, 320, 330, 400, 405]);
    expect(docTypeRuleOf(305)).toBe(DOC_TYPES[305]);
    expect(docTypeRuleOf(405)).toBe(DOC_TYPES[405]);
    expect(docTypeRuleOf(410)).toBeUndefined();
    expect(docTypeRuleOf(205)).toBeUndefined();
  });

  it('every row is complete: names, dealers, series, titles in both languages', () => {
    for (const r of rows) {
      for (const text of [r.name, r.noun, r.nounPlural, r.titles.he, r.titles.en, r.titles.journal]) expect(text.trim()).not.toBe('');
      expect(r.titles.he).toMatch(/[\u0590-\u05FF]/);
      expect(r.titles.journal).toMatch(/[\u0590-\u05FF]/);
      expect(r.titles.en).toMatch(/^[A-Za-z /]+$/);
      expect(r.issuedBy.length).toBeGreaterThan(0);
      for (const d of r.issuedBy) expect(DEALER_TYPES).toContain(d);
      expect(DOC_TYPE_CODES).toContain(r.series);
      expect(['draft', 'credit-note']).toContain(r.createdBy);
      expect(['corrects', 'reverses']).toContain(r.linkedLabel);
    }
    // Titles are unique in each language (a printed title names one type).
    for (const lang of ['he', 'en'] as const) expect(new Set(rows.map((r) => r.titles[lang])).size).toBe(rows.length);
  });

  it('the printed titles are the exact wording of decisions.md and the PDFs', () => {
    expect(Object.fromEntries(rows.map((r) => [r.code, r.titles.he]))).toEqual({
      10: 'הצעת מחיר',
      100: 'הזמנה',
      200: 'תעודת משלוח',
      210: 'תעודת החזרה',
      300: 'חשבונית עסקה',
      305: 'חשבונית מס',
      320: 'חשבונית מס / קבלה',
      330: 'חשבונית מס זיכוי',
      400: 'קבלה',
      405: 'קבלה על תרומה',
    });
    expect(Object.fromEntries(rows.map((r) => [r.code, r.titles.en]))).toEqual({
      10: 'Price Quote',
      100: 'Order',
      200: 'Delivery Note',
      210: 'Return Note',
      300: 'Transaction Invoice',
      305: 'Tax Invoice',
      320: 'Tax Invoice / Receipt',
      330: 'Credit Tax Invoice',
      400: 'Receipt',
      405: 'Donation Receipt',
    });
    expect(DOC_TITLES).toEqual(Object.fromEntries(rows.map((r) => [r.code, r.titles.he])));
    expect(EN_DOC_TITLES).toEqual(Object.fromEntries(rows.map((r) => [r.code, r.titles.en])));
  });

  it('the credit mapping is consistent', () => {
    for (const r of rows) {
      const credit = r.creditedBy;
      if (r.createdBy === 'credit-note') {
        // A credit note cannot itself be credited, and some type is credited by it.
        expect(credit).toBeNull();
        expect(rows.some((o) => o.creditedBy?.docType === r.code && o.creditedBy.as === 'credit-note')).toBe(true);
        continue;
      }
      // A commercial paper is not credited (a return note undoes a delivery); every tax document is.
      expect(credit === null).toBe(!r.taxDocument);
      if (!credit) continue;
      const by = DOC_TYPES[credit!.docType];
      if (credit!.as === 'negative') expect(credit!.docType).toBe(r.code);
      else expect(by.createdBy).toBe('credit-note');
      // Whoever issues the original may issue its reversal.
      for (const d of r.issuedBy) expect(by.issuedBy).toContain(d);
    }
  });

  it('the rules of a row agree with each other', () => {
    for (const r of rows) {
      const receipt = r.totalsFrom === 'payments';
      expect(r.openfrmt.c100 === 'receipt').toBe(receipt);
      expect(r.carriesVat).toBe(!receipt);
      expect(r.openfrmt.d110).toBe(!receipt);
      expect(r.openfrmt.d120).toBe(r.payments !== 'none');
      expect(r.openfrmt.withholding1224).toBe(r.withholding);
      expect(r.journal.receipt).toBe(r.payments !== 'none');
      expect(r.journal.invoice !== 0).toBe(!receipt && r.taxDocument);
      // A commercial paper posts nothing, needs no allocation number and no buyer's id, takes no payments.
      if (!r.taxDocument) {
        expect(r.journal).toEqual({ invoice: 0, receipt: false });
        expect([r.allocation, r.buyerTaxIdCheck, r.withholding]).toEqual([false, false, false]);
        expect(r.payments).toBe('none');
        expect(r.creditedBy).toBeNull();
      }
      if (!r.openfrmt.exported) expect(r.taxDocument).toBe(false);
      // A credit note: positive amounts in the export, the invoice mirrored in the books, "corrects" on paper.
      const creditNote = r.createdBy === 'credit-note';
      expect(r.openfrmt.amounts === 'positive').toBe(creditNote);
      expect(r.journal.invoice === -1).toBe(creditNote);
      expect(r.linkedLabel === 'corrects').toBe(creditNote);
      if (r.allocation || r.buyerTaxIdCheck || r.linesRequired) expect(r.createdBy).toBe('draft');
      if (r.allocation) expect(r.carriesVat).toBe(true);
    }
  });

  it('decisions.md: of the tax documents patur and ngo issue 400 only (and ngo 405); murshe and company every other type; every dealer the commercial papers', () => {
    const commercial = [10, 100, 200, 210, 300];
    expect(rows.filter((r) => !r.taxDocument).map((r) => r.code)).toEqual(commercial);
    for (const dealer of DEALER_TYPES) {
      for (const code of DOC_TYPE_CODES) {
        const exempt = dealer === 'patur' || dealer === 'ngo';
        const allowed = code === 405 ? dealer === 'ngo' : exempt ? code === 400 || commercial.includes(code) : true;
        expect(docTypeAllowed(dealer, code)).toBe(allowed);
      }
    }
    expect(docTypeRefusal('patur')).toBe(
      'a patur business issues price quotes (10), orders (100), delivery notes (200), return notes (210), transaction invoices (300), receipts (400) only',
    );
    expect(docTypeRefusal('company')).toMatch(/receipts \(400\) only$/);
    expect(docTypeRefusal('ngo')).toMatch(/, receipts \(400\), donation receipts \(405\) only$/);
  });

  it('decisions.md: a 405 is the one donation receipt, a receipt of its own series posted as donation income', () => {
    expect(rows.filter((r) => r.donation).map((r) => r.code)).toEqual([405]);
    const r = DOC_TYPES[405];
    expect([r.taxDocument, r.series, r.totalsFrom, r.payments, r.carriesVat, r.withholding, r.allocation]).toEqual([
      true,
      405,
      'payments',
      'are-the-total',
      false,
      false,
      false,
    ]);
    expect(r.creditedBy).toEqual({ docType: 405, as: 'negative' });
    expect(r.openfrmt).toMatchObject({ exported: true, c100: 'receipt', d110: false, d120: true });
    // Dr the means of payment / Cr donation income, never revenue or output VAT (outside the VAT report).
    expect(journalOfDocument(snapshotOf(405), 'ngo').lines).toEqual([
      { account: paymentAccount(1), side: 1, amount: 10_000 },
      { account: DONATION_INCOME, side: 2, amount: 10_000 },
    ]);
    expect(chartOf('ngo').get(DONATION_INCOME)).toMatchObject({ kind: 'revenue', trialBalanceCode: '400' });
    expect(chartOf('patur').has(DONATION_INCOME)).toBe(false);
  });

  it('decisions.md: quotes are not exported (OPENFRMT 1.31 has no code); a 300 says it is not a tax invoice', () => {
    expect(rows.filter((r) => !r.openfrmt.exported).map((r) => r.code)).toEqual([10]);
    expect(rows.filter((r) => r.printedNotice).map((r) => r.code)).toEqual([300]);
    expect(DOC_TYPES[300].printedNotice).toEqual({ he: 'זו אינה חשבונית מס', en: 'This is not a tax invoice' });
    // It shows VAT as a licensed dealer charges it, for information.
    expect(resolveVatRateBp({ docType: 300, dealerType: 'murshe', businessDefaultBp: null, draftRateBp: null, documentDate: '2026-03-01' })).toBe(1800);
    expect(resolveVatRateBp({ docType: 300, dealerType: 'patur', businessDefaultBp: null, draftRateBp: null, documentDate: '2026-03-01' })).toBe(0);
  });
});

const payment = (amount: number): DocumentPayment => ({
  method: 1,
  amount,
  dueDate: null,
  bankCode: null,
  branchCode: null,
  accountNumber: null,
  checkNumber: null,
  cardCompany: null,
  cardName: null,
  cardTxType: null,
});

function snapshotOf(docType: DocType): DocumentSnapshot {
  const r = DOC_TYPES[docType];
  const receipt = r.totalsFrom === 'payments';
  return {
    docType,
    docNumber: 5,
    documentDate: '2026-03-01',
    valueDate: '2026-03-01',
    issuedAt: '2026-03-01T08:00:00.000Z',
    dealer: { name: 'd', taxId: '516179157', dealerType: 'company', address: null, phone: null, email: null },
    branding: { logoRef: null, accentColor: null, tagline: null, website: null, footerText: null, template: 'classic' },
    party: { partyId: null, key: null, name: 'p', taxId: '512200502', phone: null, email: null, address: null },
    lines: receipt ? [] : [{ description: 'x', quantity: -1, unitPriceExVat: 10_000, sku: null, unit: 'u', lineDiscount: 0, amount: 10_000 }],
    payments: r.payments === 'none' ? [] : [payment(receipt ? 10_000 : 11_800)],
    priceMode: 'net',
    vatRateBp: receipt ? 0 : 1800,
    vatExemptionReason: null,
    totals: receipt
      ? { totalExVat: 10_000, vatAmount: 0, totalIncVat: 10_000, discountAmount: 0, withholdingAmount: 0 }
      : { totalExVat: 10_000, vatAmount: 1_800, totalIncVat: 11_800, discountAmount: 0, withholdingAmount: 0 },
    note: null,
    allocationNumber: null,
    linkedDocument: null,
  };
}

describe('the modules decide as the table says', () => {
  it('totals: a receipt is the sum of its payments and carries no VAT; payments by the rule', () => {
    for (const r of rows) {
      const t = computeTotals({
        docType: r.code,
        priceMode: 'net',
        vatRateBp: 1800,
        lines: [{ quantity: 1, unitPriceExVat: 10_000 }],
        payments: [{ amount: 700 }],
        discountAmount: 0,
        withholdingAmount: 0,
      });
      expect(t.totalIncVat).toBe(r.totalsFrom === 'payments' ? 700 : 11_800);
      const rate = resolveVatRateBp({ docType: r.code, dealerType: 'company', businessDefaultBp: null, draftRateBp: null, documentDate: '2026-03-01' });
      expect(rate > 0).toBe(r.carriesVat);
      const none = paymentsProblem(r.code, t, 0);
      expect(none === null).toBe(r.payments === 'none');
      if (none) expect(none).toBe(`a ${r.code} ${r.noun} needs payments`);
      expect(buyerTaxIdRequired(r.code, 1_000_000, null)).toBe(r.buyerTaxIdCheck);
    }
  });

  it('drafts: lines, payments, withholding and a discount refused as the rules say', () => {
    const baseDraft = (docType: DocType, over: Partial<DraftFields> = {}): DraftFields => ({
      docType,
      party: null,
      priceMode: 'net',
      lines: [],
      payments: [],
      note: null,
      documentDate: '2026-03-01',
      valueDate: '2026-03-01',
      vatRateBp: null,
      vatExemptionReason: null,
      discountAmount: 0,
      withholdingAmount: 0,
      allocationNumber: null,
      currency: 'ILS',
      exchangeRate: null,
      language: 'he',
      ...over,
    });
    const line = { description: 'x', quantity: 1, unitPriceExVat: 10_000, sku: null, unit: 'u', lineDiscount: 0, amount: 10_000 };
    const donor = { partyId: null, key: null, name: 'תורם', taxId: '123456782', phone: null, email: null, address: null };
    for (const code of DRAFT_DOC_TYPE_CODES) {
      const r = DOC_TYPES[code];
      // A dealer that may issue the type; a donation receipt names its donor by ID number.
      const dealer = r.issuedBy.includes('company') ? 'company' : r.issuedBy[0];
      const draft = (docType: DocType, over: Partial<DraftFields> = {}) => baseDraft(docType, { ...(r.donation ? { party: donor } : {}), ...over });
      const ok = { lines: [line] };
      if (r.linesRequired) expect(() => checkDraft(draft(code), dealer)).toThrow(/at least one line/);
      else expect(() => checkDraft(draft(code), dealer)).not.toThrow();
      if (r.donation) expect(() => checkDraft(draft(code, { party: null }), dealer)).toThrow(/needs the donor's ID number/);
      const paid = () => checkDraft(draft(code, { ...ok, payments: [payment(100)] }), dealer);
      if (r.payments === 'none') expect(paid).toThrow(`a ${code} ${r.noun} carries no payments; use a 320 invoice/receipt or a 400 receipt`);
      else expect(paid).not.toThrow();
      const withheld = () => checkDraft(draft(code, { ...ok, withholdingAmount: 100 }), dealer);
      if (r.withholding) expect(withheld).not.toThrow();
      else expect(withheld).toThrow(`withholding is recorded on receipts (320, 400), not on a ${code}`);
      const discounted = () => checkDraft(draft(code, { ...ok, discountAmount: 100 }), dealer);
      if (r.totalsFrom === 'payments') expect(discounted).toThrow(/has no document discount/);
      else expect(discounted).not.toThrow();
    }
    expect(() => checkDraft(baseDraft(305, { lines: [line] }), 'patur')).toThrow(
      /^docType: a patur business issues price quotes \(10\), .*receipts \(400\) only$/,
    );
    for (const code of [10, 100, 200, 210, 300] as const) expect(() => checkDraft(baseDraft(code, { lines: [line] }), 'patur')).not.toThrow();
  });

  it('credit notes: the reversing type and its kind come from creditedBy', () => {
    for (const r of rows) {
      const original = { id: 'doc_o', docType: r.code, docNumber: 5, snapshot: snapshotOf(r.code), linkedDocumentId: null } as never;
      if (!r.creditedBy) {
        expect(() => reversalOf(original, null)).toThrow(r.taxDocument ? /cannot itself be credited/ : /is not a tax document and cannot be credited/);
        continue;
      }
      const reversal = reversalOf(original, 'why');
      expect(reversal.docType).toBe(r.creditedBy.docType);
      expect(reversal.totals.totalIncVat < 0).toBe(r.creditedBy.as === 'negative');
    }
  });

  it('OPENFRMT: lines, payments, withholding and signs as the row says', () => {
    for (const r of rows) {
      const d = exportDocument({ ...snapshotOf(r.code), totals: { ...snapshotOf(r.code).totals, withholdingAmount: 100 } });
      expect(d.docType).toBe(r.code);
      expect(d.lines.length > 0).toBe(r.openfrmt.d110);
      expect(d.payments.length > 0).toBe(r.openfrmt.d120);
      expect(d.header.withholding).toBe(r.openfrmt.withholding1224 ? 100 : 0);
      expect(d.header.vatAmount).toBe(r.openfrmt.c100 === 'receipt' ? 0 : 1_800);
      if (r.openfrmt.d110) expect(d.lines[0].quantity).toBe(r.openfrmt.amounts === 'positive' ? 1 : -1);
    }
  });

  it('the journal: invoice and receipt parts, and the description, from the row', () => {
    for (const r of rows) {
      const snap = snapshotOf(r.code);
      const { lines } = journalOfDocument(snap, 'company');
      expect(lines.some((l) => l.account === OUTPUT_VAT)).toBe(r.journal.invoice !== 0);
      // A commercial paper writes no entry at all (journalCall answers null for an entry without lines).
      expect(lines.length === 0).toBe(!r.taxDocument);
      expect(lines.some((l) => l.account === paymentAccount(1))).toBe(r.journal.receipt);
      const entry = documentEntryOf(snap, 'company');
      expect(entry.description.startsWith(`${r.titles.journal} 5`)).toBe(true);
      expect(entry.referenceDocType).toBe(r.code);
    }
  });

  it('allocation numbers: only the types the row allows', () => {
    for (const r of rows) {
      const e = allocationEligibility({ docType: r.code, documentDate: '2026-07-01', totalExVat: 10_000_000, vatAmount: 1_800_000, partyTaxId: '512200502' });
      expect(e.required).toBe(r.allocation);
    }
  });

  it('the PDF: receipt style and the linked document label', () => {
    for (const r of rows) {
      const m = sampleModel(r.code, 'classic', { linkedDocument: { docType: 305, docNumber: 1 } });
      expect(isReceiptStyle({ ...m, lines: [{ description: 'x', quantity: 1, unitPrice: 1, lineDiscount: 0, amount: 1, unit: null, sku: null }] })).toBe(
        r.totalsFrom === 'payments',
      );
      const label = r.linkedLabel === 'corrects' ? 'זיכוי עבור' : 'ביטול של';
      expect(infoLines(m).some((l) => l.startsWith(`${label}: חשבונית מס`))).toBe(true);
    }
  });

  it('the OpenAPI enum of docType and the draft types come from the table', () => {
    expect((DocTypeSchema as unknown as { enum: number[] }).enum).toEqual([...DOC_TYPE_CODES]);
    const input = (DraftCreate as unknown as { properties: { docType: { anyOf: { const: number }[]; description: string } } }).properties.docType;
    expect(input.anyOf.map((x) => x.const)).toEqual([...DRAFT_DOC_TYPE_CODES]);
    expect(DRAFT_DOC_TYPE_CODES).toEqual(rows.filter((r) => r.createdBy === 'draft').map((r) => r.code));
    expect(input.description).toBe('10, 100, 200, 210, 300, 305, 320, 400 or 405; a 330 is created only by the credit-note endpoint.');
  });
});
