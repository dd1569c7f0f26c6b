import { describe, expect, it } from 'vitest';
import { approvalInputOfDraft, approvalInputOfIssued, draftRequestProblem } from '../../src/allocation/document-input.ts';
import type { DocumentRow } from '../../src/documents/snapshot.ts';

const issuer = { id: 'biz_1', taxId: '516179157', dealerType: 'company' as const, defaultVatRateBp: null };
const party = { partyId: null, key: null, name: 'לקוח', taxId: '512200502', phone: null, email: null, address: null };
const draft = (over: Partial<DocumentRow> = {}): DocumentRow => ({
  id: 'doc_1',
  businessId: 'biz_1',
  status: 'draft',
  docType: 305,
  docNumber: null,
  partyId: null,
  party,
  priceMode: 'net',
  lines: [{ description: 'x', quantity: 2, unitPriceExVat: 350_000, sku: null, unit: 'יחידה', lineDiscount: 0, amount: 700_000 }],
  payments: [],
  note: null,
  documentDate: '2026-07-01',
  valueDate: '2026-07-01',
  datedAtIssue: false,
  vatRateBp: null,
  vatExemptionReason: null,
  discountAmount: 0,
  withholdingAmount: 0,
  totalExVat: 0,
  vatAmount: 0,
  totalIncVat: 0,
  currency: 'ILS',
  exchangeRate: null,
  exchangeRateDate: null,
  exchangeRateSource: null,
  language: 'he',
  linkedDocumentId: null,
  externalRef: null,
  metadata: {},
  requestHash: null,
  allocationNumber: null,
  allocation: null,
  warnings: [],
  cancelledByDocumentId: null,
  pdfFiles: null,
  originHandedOutAt: null,
  printCount: 0,
  snapshot: null,
  issuedAt: null,
  createdByKeyId: null,
  createdAt: '',
  updatedAt: '',
  ...over,
});

describe('approval input of a draft (the figures issue will freeze)', () => {
  it('net: recomputes totals, ignores the stored preview columns, and is eligible above 5,000 NIS from 2026-06-01', () => {
    const a = approvalInputOfDraft(draft({ discountAmount: 100_000 }), issuer, '2026-07-02');
    expect(a.vatRateBp).toBe(1800);
    expect(a.input).toMatchObject({
      invoiceReferenceNumber: null,
      invoiceDate: '2026-07-01',
      invoiceIssuanceDate: '2026-07-02',
      vatNumber: '516179157',
      customerVatNumber: '512200502',
      amountBeforeDiscount: 700_000,
      discount: 100_000,
      paymentAmount: 600_000,
      vatAmount: 108_000,
      paymentAmountIncludingVat: 708_000,
    });
    expect(a.eligibility).toEqual({ required: true, threshold: 500_000 });
    expect(draftRequestProblem(draft(), a)).toBeNull();
  });
  it('gross: the discount is sent before VAT', () => {
    const a = approvalInputOfDraft(draft({ priceMode: 'gross', discountAmount: 11_800 }), issuer, '2026-07-02');
    // 700,000 − 11,800 = 688,200 incl. VAT → 583,220 ex VAT; the discount 11,800 incl. → 10,000 ex.
    expect(a.input).toMatchObject({
      paymentAmountIncludingVat: 688_200,
      paymentAmount: 583_220,
      vatAmount: 104_980,
      discount: 10_000,
      amountBeforeDiscount: 593_220,
    });
  });
  it('a business default rate and an old date are honoured', () => {
    expect(approvalInputOfDraft(draft({ documentDate: '2024-12-31' }), issuer, '2024-12-31').vatRateBp).toBe(1700);
    expect(approvalInputOfDraft(draft(), { ...issuer, defaultVatRateBp: 0 }, '2026-07-02').input.vatAmount).toBe(0);
  });
  it.each([
    [{ docType: 400 as const }, /only 305 and 320/],
    [{ party: { ...party, taxId: null } }, /taxId/],
    [{ party: null }, /taxId/],
    [{ vatRateBp: 0, vatExemptionReason: 'export' as const }, /no VAT/],
  ])('cannot be asked: %j', (over, problem) => {
    const d = draft(over);
    expect(draftRequestProblem(d, approvalInputOfDraft(d, issuer, '2026-07-02'))).toMatch(problem);
  });
});

describe('approval input of an issued document', () => {
  it('reads the frozen snapshot, not the row', () => {
    const snapshot: any = {
      docType: 320,
      docNumber: 42,
      documentDate: '2026-07-01',
      issuedAt: '2026-07-01T09:00:00.000Z',
      dealer: { taxId: '516179157' },
      party,
      priceMode: 'net',
      vatRateBp: 1800,
      note: 'n',
      totals: { totalExVat: 600_000, vatAmount: 108_000, totalIncVat: 708_000, discountAmount: 5_000, withholdingAmount: 0 },
    };
    const i = approvalInputOfIssued(draft({ status: 'issued', snapshot, issuedAt: '2026-07-01T09:00:00.000Z', totalExVat: 1 }));
    expect(i).toMatchObject({
      invoiceType: 320,
      invoiceReferenceNumber: '42',
      paymentAmount: 600_000,
      discount: 5_000,
      amountBeforeDiscount: 605_000,
      note: 'n',
      invoiceIssuanceDate: '2026-07-01',
    });
    expect(approvalInputOfIssued(draft())).toBeNull();
  });
});
