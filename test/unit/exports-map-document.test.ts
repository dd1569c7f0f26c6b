import { describe, expect, it } from 'vitest';
import { acquirerCode, dealTypeCode, exportDocument } from '../../src/exports/map-document.ts';
import { israelDateTime } from '../../src/platform/israel-time.ts';
import { writeC100 } from '../../src/openfrmt/records.ts';
import { written } from '../helpers/openfrmt-records.ts';
import type { DocumentSnapshot } from '../../src/documents/snapshot-types.ts';

const base: DocumentSnapshot = {
  docType: 305,
  docNumber: 12,
  documentDate: '2026-01-31',
  valueDate: '2026-02-05',
  issuedAt: '2026-01-31T22:15:00.000Z',
  dealer: { name: 'עסק', taxId: '516179157', dealerType: 'company', address: null, phone: null, email: null },
  branding: { logoRef: null, accentColor: null, tagline: null, website: null, footerText: null, template: 'classic' },
  party: { partyId: 'pty_1', key: 'C00007', name: 'לקוח', taxId: '512200502', phone: null, email: null, address: 'הרצל 1' },
  lines: [{ description: 'x', quantity: 2, unitPriceExVat: 11_800, sku: 'A', unit: 'יחידה', lineDiscount: 1_180, amount: 22_420 }],
  payments: [],
  priceMode: 'gross',
  vatRateBp: 1800,
  vatExemptionReason: null,
  totals: { totalExVat: 18_000, vatAmount: 3_240, totalIncVat: 21_240, discountAmount: 1_180, withholdingAmount: 0 },
  note: null,
  allocationNumber: null,
  linkedDocument: null,
};

describe('snapshot → OPENFRMT inputs', () => {
  it('issue date and time are Israel wall-clock (UTC 22:15 on Jan 31 is 00:15 on Feb 1)', () => {
    expect(israelDateTime('2026-01-31T22:15:00.000Z')).toEqual({ date: '2026-02-01', time: '00:15' });
    const d = exportDocument(base);
    expect(d.header).toMatchObject({ issueDate: '2026-02-01', issueTime: '00:15', valueDate: '2026-02-05' });
    expect(d.docDate).toBe('2026-01-31');
  });
  it('gross prices are brought to ex-VAT; stored totals are kept', () => {
    const d = exportDocument(base);
    expect(d.lines[0]).toMatchObject({ unitPriceExVat: 10_000, lineDiscount: 1_000, lineTotal: 19_000, vatRateBp: 1800 });
    // 1219 = totalExVat + discount ex VAT (1,180 gross = 1,000 net)
    expect(d.header).toMatchObject({ amountBeforeDiscount: 19_000, discount: 1_000, amountAfterDiscountExVat: 18_000, vatAmount: 3_240, totalIncVat: 21_240 });
    expect(d.header).toMatchObject({ partyKey: 'C00007', partyVatId: '512200502', partyStreet: 'הרצל 1' });
  });
  it('a credit note is positive and names its base document on each line', () => {
    const d = exportDocument({ ...base, docType: 330, priceMode: 'net', linkedDocument: { id: 'doc_1', docType: 305, docNumber: 9 } });
    expect(d.lines[0]).toMatchObject({ baseDocType: 305, baseDocNumber: '9', lineTotal: 22_420 });
    expect(d.payments).toEqual([]);
  });
  it('a receipt: received amount in 1219/1221/1223, VAT 0, withholding positive; negative receipts stay negative', () => {
    const r: DocumentSnapshot = {
      ...base,
      docType: 400,
      priceMode: 'net',
      lines: [],
      party: null,
      payments: [
        {
          method: 92,
          amount: 5_000,
          dueDate: null,
          bankCode: null,
          branchCode: null,
          accountNumber: null,
          checkNumber: null,
          cardCompany: null,
          cardName: null,
          cardTxType: null,
        },
      ],
      totals: { totalExVat: 5_000, vatAmount: 0, totalIncVat: 5_000, discountAmount: 0, withholdingAmount: 700 },
    };
    const d = exportDocument(r);
    expect(d.header).toMatchObject({
      amountBeforeDiscount: 5_000,
      amountAfterDiscountExVat: 5_000,
      vatAmount: 0,
      totalIncVat: 5_000,
      withholding: 700,
      partyName: 'לקוח מזדמן',
      partyKey: '400-12',
    });
    expect(d.lines).toEqual([]);
    expect(d.payments).toEqual([expect.objectContaining({ method: 92, amount: 5_000, bankNo: null, acquirer: null })]);
    const neg = exportDocument({
      ...r,
      payments: [{ ...r.payments[0], amount: -5_000 }],
      totals: { ...r.totals, totalExVat: -5_000, totalIncVat: -5_000, withholdingAmount: -700 },
    });
    expect(neg.header).toMatchObject({ totalIncVat: -5_000, withholding: 700 });
    expect(neg.payments[0].amount).toBe(-5_000);
    // As written: the whole negative receipt is negative, withholding included (it follows the document's sign).
    const rec = written(writeC100, { ...neg.header, recordNo: 2, vatId: '516179157', docType: 400, docNumber: '13', docDate: '2026-01-31', linkNo: 1 });
    expect(rec.slice(287, 374)).toBe('-00000000005000+00000000000000-00000000005000+00000000000000-00000000005000-00000000700');
  });
  it('bank fields only on cheques, card fields only on cards', () => {
    const p = {
      amount: 1,
      dueDate: '2026-03-01',
      bankCode: '12',
      branchCode: '3',
      accountNumber: '4',
      checkNumber: '5',
      cardCompany: 'Isracard',
      cardName: 'Visa',
      cardTxType: 'regular',
    };
    const d = exportDocument({
      ...base,
      docType: 320,
      payments: [
        { ...p, method: 2 },
        { ...p, method: 3 },
        { ...p, method: 4 },
      ],
    });
    expect(d.payments[0]).toMatchObject({ bankNo: '12', chequeNo: '5', acquirer: null, dueDate: '2026-03-01' });
    expect(d.payments[1]).toMatchObject({ bankNo: null, acquirer: 1, cardName: 'Visa', dealType: 1, dueDate: '2026-03-01' });
    expect(d.payments[2]).toMatchObject({ bankNo: null, acquirer: null, dueDate: null });
  });
  it.each([
    ['max', 6],
    ['Leumi Card', 6],
    ['לאומי קארד', 6],
    ['isracard', 1],
    ['Cal', 2],
    ['ויזה כאל', 2],
    ['Diners', 3],
    ['AMEX', 4],
    ['4', 4],
    ['visa', null],
    [null, null],
  ])('card company %s → %s', (text, code) => expect(acquirerCode(text)).toBe(code));
  it.each([
    ['installments', 2],
    ['תשלומים', 2],
    ['credit', 3],
    ['deferred', 4],
    ['5', 5],
    ['weird', null],
  ])('deal type %s → %s', (t, c) => expect(dealTypeCode(t)).toBe(c));
  it('occasional customers: every document its own key, a reversal the key of what it reverses; saved keys and tax ids kept', () => {
    const anon: DocumentSnapshot = { ...base, docType: 400, priceMode: 'net', lines: [], party: null, totals: { ...base.totals, withholdingAmount: 0 } };
    expect(exportDocument({ ...anon, docNumber: 5 }).header.partyKey).toBe('400-5');
    expect(exportDocument({ ...anon, docNumber: 6 }).header.partyKey).toBe('400-6');
    expect(exportDocument({ ...anon, docNumber: 7, linkedDocument: { id: 'doc_5', docType: 400, docNumber: 5 } }).header.partyKey).toBe('400-5');
    const inline = { ...base.party!, partyId: null, key: null, taxId: null };
    expect(exportDocument({ ...base, party: inline }).header).toMatchObject({ partyName: 'לקוח', partyKey: '305-12' });
    expect(exportDocument({ ...base, party: { ...inline, taxId: '512200502' } }).header.partyKey).toBe('512200502');
    expect(exportDocument(base).header.partyKey).toBe('C00007');
  });
  it('1224 is for receipts: 0 on 305 and 330 whatever the snapshot says', () => {
    expect(exportDocument({ ...base, totals: { ...base.totals, withholdingAmount: 500 } }).header.withholding).toBe(0);
    expect(exportDocument({ ...base, docType: 330, totals: { ...base.totals, withholdingAmount: 500 } }).header.withholding).toBe(0);
    expect(exportDocument({ ...base, docType: 320, totals: { ...base.totals, withholdingAmount: 500 } }).header.withholding).toBe(500);
  });
});
