/** The fixed data set of the export tests: every issuable type, a credit note, withholding, a cheque, a card, an app payment, Hebrew names, discounts. */
import { expect } from 'vitest';
import { TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';

export async function issueDoc(env: TestEnv, key: string, bid: string, body: Record<string, unknown>): Promise<any> {
  const d = await env.call('POST', `/v1/businesses/${bid}/documents`, { key, body });
  expect(d.status, JSON.stringify(d.body)).toBe(201);
  const i = await env.call('POST', `/v1/businesses/${bid}/documents/${d.body.document.id}/issue`, { key });
  expect(i.status, JSON.stringify(i.body)).toBe(201);
  return i.body.document;
}

export async function creditNote(env: TestEnv, key: string, bid: string, id: string): Promise<any> {
  const r = await env.call('POST', `/v1/businesses/${bid}/documents/${id}/credit-note`, { key, body: { reason: 'החזרה' } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.document;
}

/**
 * Hand-computed (18% VAT, net prices):
 *  305 #1: 2 × 100.00 (SKU-1) + 1.5 × 200.00 − 10.00 line discount = 490.00; − 5.00 document discount
 *          = 485.00 ex VAT; VAT 87.30; total 572.30.
 *  320 #1: 1 × 1,000.00 (SKU-1 again) = 1,000.00; VAT 180.00; total 1,180.00; withholding 50.00;
 *          card 1,130.00 (max, installments).
 *  400 #1: cheque 300.00 + bit 200.00 = 500.00 received; withholding 25.00.
 *  400 #2: anonymous cash 50.00.
 *  330 #1: credit note of the 305: 485.00 / 87.30 / 572.30, positive.
 */
export async function issueFixture(env: TestEnv, a: TestAccount, bid: string) {
  const inv = await issueDoc(env, a.test, bid, {
    docType: 305,
    party: { name: 'חברת אלפא בע״מ', taxId: TAX_IDS.company2, address: 'הרצל 10, תל אביב', phone: '03-5555555' },
    lines: [
      { description: 'מוצר א', quantity: 2, unitPriceExVat: 10_000, sku: 'SKU-1' },
      { description: 'ייעוץ – שעות', quantity: 1.5, unitPriceExVat: 20_000, lineDiscount: 1_000, unit: 'שעה' },
    ],
    discountAmount: 500,
  });
  const invReceipt = await issueDoc(env, a.test, bid, {
    docType: 320,
    party: { name: 'Beta Ltd', taxId: TAX_IDS.person2 },
    lines: [{ description: 'מוצר א', quantity: 1, unitPriceExVat: 100_000, sku: 'SKU-1' }],
    withholdingAmount: 5_000,
    payments: [{ method: 'card', amount: 113_000, cardCompany: 'max', cardName: 'ויזה', cardTxType: 'installments', dueDate: '2026-04-01' }],
  });
  const receipt = await issueDoc(env, a.test, bid, {
    docType: 400,
    party: { name: 'גמא ושות׳', taxId: TAX_IDS.person3 },
    withholdingAmount: 2_500,
    payments: [
      { method: 'cheque', amount: 30_000, bankCode: '12', branchCode: '345', accountNumber: '123456', checkNumber: '1001', dueDate: '2026-03-15' },
      { method: 'bit', amount: 20_000 },
    ],
  });
  const cash = await issueDoc(env, a.test, bid, { docType: 400, payments: [{ method: 'cash', amount: 5_000 }] });
  const credit = await creditNote(env, a.test, bid, inv.id);
  return { inv, invReceipt, receipt, cash, credit };
}
