// From a stored document to the render model: language, currency, rate and shekel totals.
import { describe, expect, it } from 'vitest';
import { draftRenderModel, issuedRenderModel } from '../../src/prints/render-model.ts';
import type { DocumentRow } from '../../src/documents/snapshot.ts';
import type { DocumentSnapshot } from '../../src/documents/snapshot-types.ts';
import type { BusinessRecord } from '../../src/businesses/records.ts';

const totals = { discountAmount: 0, totalExVat: 10000, vatAmount: 1800, totalIncVat: 11800, withholdingAmount: 0 };
const payment = {
  method: 4 as const,
  amount: 11800,
  dueDate: null,
  bankCode: null,
  branchCode: null,
  accountNumber: null,
  checkNumber: null,
  cardCompany: null,
  cardName: null,
  cardTxType: null,
};

function snapshot(over: Partial<DocumentSnapshot> = {}): DocumentSnapshot {
  return {
    docType: 320,
    docNumber: 12,
    documentDate: '2026-03-01',
    valueDate: '2026-03-01',
    dealer: { name: 'Cafe', taxId: '516179157', dealerType: 'murshe' },
    branding: { template: 'classic' },
    party: { name: 'Alpha' },
    priceMode: 'net',
    vatRateBp: 1800,
    vatExemptionReason: null,
    lines: [{ description: 'x', quantity: 1, unitPriceExVat: 10000, sku: null, unit: "יח'", lineDiscount: 0, amount: 10000 }],
    payments: [payment],
    totals,
    note: null,
    allocationNumber: null,
    linkedDocument: null,
    ...over,
  } as unknown as DocumentSnapshot;
}

const row = (snap: DocumentSnapshot) => ({ status: 'issued', snapshot: snap, allocationNumber: null }) as unknown as DocumentRow;

describe('issuedRenderModel', () => {
  it('reads an older snapshot as Hebrew shekels', () => {
    const m = issuedRenderModel(row(snapshot()), null);
    expect(m).toMatchObject({ language: 'he', currency: { code: 'ILS', minorUnits: 2 }, exchangeRate: null, ils: null });
    expect(m.payments[0]).toMatchObject({ method: 4, amount: 11800, currency: null, originalAmount: null });
  });

  it('carries language, currency with its minor units, the rate and the recorded shekel totals', () => {
    const ils = { discountAmount: 0, totalExVat: 37210, vatAmount: 6698, totalIncVat: 43908, withholdingAmount: 0 };
    const m = issuedRenderModel(
      row(
        snapshot({
          language: 'en',
          currency: 'KWD',
          exchangeRate: '12.1034',
          exchangeRateDate: '2026-02-27',
          exchangeRateSource: 'boi',
          ils,
          payments: [
            { ...payment, currency: 'EUR', exchangeRate: '4.0123', originalAmount: 9274 },
            { ...payment, currency: 'KWD' },
          ],
        }),
      ),
      null,
    );
    expect(m).toMatchObject({
      language: 'en',
      currency: { code: 'KWD', minorUnits: 3 },
      exchangeRate: '12.1034',
      exchangeRateDate: '2026-02-27',
      exchangeRateSource: 'boi',
      ils,
    });
    expect(m.payments[0]).toMatchObject({ currency: { code: 'EUR', minorUnits: 2 }, exchangeRate: '4.0123', originalAmount: 9274 });
    // A payment in the document's own currency is not "another currency".
    expect(m.payments[1]).toMatchObject({ currency: null, originalAmount: null });
    expect(issuedRenderModel(row(snapshot({ currency: 'JPY' })), null).currency).toEqual({ code: 'JPY', minorUnits: 0 });
  });

  it('keeps bilingual and falls back to Hebrew for an unknown language', () => {
    expect(issuedRenderModel(row(snapshot({ language: 'he+en' })), null).language).toBe('he+en');
    expect(issuedRenderModel(row(snapshot({ language: 'fr' as never })), null).language).toBe('he');
  });
});

describe('draftRenderModel', () => {
  const business = {
    name: 'Cafe',
    taxId: '516179157',
    dealerType: 'murshe',
    defaultVatRateBp: null,
    address: null,
    phone: null,
    email: null,
    branding: { template: 'classic', accentColor: null, tagline: null, website: null, footerText: null },
  } as unknown as BusinessRecord;
  const draft = (over: Record<string, unknown> = {}) =>
    ({
      status: 'draft',
      docType: 305,
      documentDate: '2026-03-01',
      valueDate: null,
      priceMode: 'net',
      vatRateBp: null,
      vatExemptionReason: null,
      lines: [{ description: 'x', quantity: 2, unitPriceExVat: 500, sku: null, unit: null, lineDiscount: 0 }],
      payments: [],
      discountAmount: 0,
      withholdingAmount: 0,
      party: null,
      allocationNumber: null,
      note: null,
      ...over,
    }) as unknown as DocumentRow;

  it('previews in the draft language and currency, without shekel totals (fixed only at issue)', () => {
    const m = draftRenderModel(draft({ language: 'en', currency: 'USD', exchangeRate: '3.7210' }), business, null);
    expect(m).toMatchObject({ language: 'en', currency: { code: 'USD', minorUnits: 2 }, exchangeRate: '3.7210', ils: null, docNumber: null });
    expect(m.totals.totalIncVat).toBe(1180);
    expect(draftRenderModel(draft(), business, null)).toMatchObject({ language: 'he', currency: { code: 'ILS', minorUnits: 2 }, exchangeRate: null });
  });
});
