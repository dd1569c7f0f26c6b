/**
 * Issue 15: every value a draft or an expense takes fits the OPENFRMT field that will carry it.
 * For each limit: the largest accepted value issues, exports and verifies; the smallest refused
 * one is a 400 `validation` naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { maxAgorot, maxLength, maxDigits, maxValue } from '../../src/openfrmt/limits.ts';

let env: TestEnv;
let a: TestAccount;
beforeAll(async () => {
  env = await createTestEnv();
  a = await env.account();
});
afterAll(async () => env?.close());

const AMOUNT = maxAgorot('unitPrice'); // X9(12)v99
const WITHHOLDING = maxAgorot('withholding'); // X9(9)v99
const QTY = maxValue('quantity'); // X9(12)v9999, 15 exact digits
const line = (over: Record<string, unknown> = {}) => ({ description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000, ...over });
const exempt = { vatRateBp: 0, vatExemptionReason: 'export' };

const draft = (bid: string, body: Record<string, unknown>) => env.call('POST', `/v1/businesses/${bid}/documents`, { key: a.test, body });

async function expectRefused(bid: string, body: Record<string, unknown>, field: string) {
  const res = await draft(bid, body);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.reason).toBe('validation');
  expect(res.body.error.startsWith(`${field}:`), res.body.error).toBe(true);
}

/** The largest accepted values, each in a document that must issue, export and verify. */
const maxima: [string, Record<string, unknown>][] = [
  ['quantity', { docType: 305, party: { name: 'q' }, lines: [line({ quantity: QTY, unitPriceExVat: 1 })] }],
  ['quantity with 4 decimals, exact line total', { docType: 305, party: { name: 'q4' }, lines: [line({ quantity: 1.0005, unitPriceExVat: 1000 })] }],
  ['unitPriceExVat', { docType: 305, party: { name: 'p' }, ...exempt, lines: [line({ unitPriceExVat: AMOUNT })] }],
  ['lineDiscount', { docType: 305, party: { name: 'd' }, ...exempt, lines: [line({ quantity: 2, unitPriceExVat: AMOUNT, lineDiscount: AMOUNT })] }],
  ['discountAmount', { docType: 305, party: { name: 'dd' }, ...exempt, lines: [line({ unitPriceExVat: AMOUNT })], discountAmount: AMOUNT - 1 }],
  ['totalIncVat at 18%', { docType: 305, party: { name: 't' }, lines: [line({ unitPriceExVat: 84_745_762_711_863 })] }],
  ['payment amount', { docType: 400, party: { name: 'r' }, payments: [{ method: 'cash', amount: AMOUNT }] }],
  ['withholdingAmount', { docType: 400, party: { name: 'w' }, payments: [{ method: 'transfer', amount: 100 }], withholdingAmount: WITHHOLDING }],
  [
    'texts at their widths',
    {
      docType: 320,
      party: {
        name: 'א'.repeat(maxLength('partyName')),
        address: 'ב'.repeat(maxLength('partyAddress')),
        phone: '0'.repeat(maxLength('partyPhone')),
        taxId: TAX_IDS.person,
      },
      lines: [
        line({
          description: 'ג'.repeat(maxLength('lineDescription')),
          sku: 'S'.repeat(maxLength('lineSku')),
          unit: 'ד'.repeat(maxLength('lineUnit')),
          quantity: 1,
          unitPriceExVat: 1000,
        }),
      ],
      payments: [
        {
          method: 'cheque',
          amount: 1,
          bankCode: '9'.repeat(maxDigits('bankNo')),
          branchCode: '9'.repeat(maxDigits('bankBranch')),
          accountNumber: '9'.repeat(maxDigits('bankAccount')),
          checkNumber: '9'.repeat(maxDigits('chequeNo')),
        },
        { method: 'card', amount: 1, cardName: 'ה'.repeat(maxLength('cardName')) },
      ],
    },
  ],
];

describe('the largest accepted values issue, export and verify', () => {
  it('every maximum', async () => {
    // Single-entry books: the per-document limits. (Double-entry books add B110 sums over the range: below.)
    const b = await env.business(a.test, { bookkeeping: 'single' });
    const issued: { docType: number; totalIncVat: number }[] = [];
    for (const [name, body] of maxima) {
      let d = (await draft(b.id, body)).body;
      expect(d.document, `${name}: ${JSON.stringify(d)}`).toBeTruthy();
      if (body.docType === 320) {
        // pay what the document comes to (the two payments above are placeholders of the widths)
        const due = d.document.totalIncVat - 1;
        const payments = (body.payments as Record<string, unknown>[]).map((p, i) => (i === 0 ? { ...p, amount: due } : p));
        d = (await env.call('PATCH', `/v1/businesses/${b.id}/documents/${d.document.id}`, { key: a.test, body: { payments } })).body;
      }
      const res = await env.call('POST', `/v1/businesses/${b.id}/documents/${d.document.id}/issue`, { key: a.test });
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(201);
      issued.push(res.body.document);
    }
    const q4 = issued[1] as unknown as { lines: { amount: number }[] };
    expect(q4.lines[0].amount).toBe(1001); // 1.0005 × 1000 = 1000.5 → 1001, not 1000 (binary noise)
    const ex = await env.call('POST', `/v1/businesses/${b.id}/exports/openfrmt`, { key: a.test, body: { from: '2026-01-01', to: '2026-12-31' } });
    expect(ex.status, JSON.stringify(ex.body)).toBe(201);
    expect(ex.body.exportRun.verification.ok, JSON.stringify(ex.body.exportRun.verification)).toBe(true);
    expect(ex.body.exportRun.recordCounts.C100).toBe(maxima.length);
  });
});

describe('double-entry books whose account sums outgrow B110', () => {
  it('are refused with 409 conflict naming the account and what to do, the run recorded failed', async () => {
    const b = await env.business(a.test, { bookkeeping: 'double' });
    for (const name of ['x1', 'x2']) {
      const d = (await draft(b.id, { docType: 305, party: { name }, ...exempt, lines: [line({ unitPriceExVat: AMOUNT })] })).body;
      expect((await env.call('POST', `/v1/businesses/${b.id}/documents/${d.document.id}/issue`, { key: a.test })).status).toBe(201);
    }
    const ex = await env.call('POST', `/v1/businesses/${b.id}/exports/openfrmt`, { key: a.test, body: { from: '2026-01-01', to: '2026-12-31' } });
    expect(ex.status, JSON.stringify(ex.body)).toBe(409);
    expect(ex.body.error).toMatch(/account 1190: its total debits in the range .* exceed what OPENFRMT B110 carries .*export a shorter range/);
    const runs = await env.call('GET', `/v1/businesses/${b.id}/exports`, { key: a.test });
    expect(runs.body.exportRuns[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/B110/) });
  });
});

describe('the smallest refused values answer 400 naming the field', () => {
  let bid: string;
  beforeAll(async () => {
    bid = (await env.business(a.test)).id;
  });
  const cases: [string, Record<string, unknown>, string][] = [
    ['quantity over D110/1264', { docType: 305, lines: [line({ quantity: 100_000_000_000, unitPriceExVat: 1 })] }, 'body.lines[0].quantity'],
    ['quantity with 5 decimals', { docType: 305, lines: [line({ quantity: 1.00005 })] }, 'body.lines[0].quantity'],
    ['unitPriceExVat', { docType: 305, ...exempt, lines: [line({ unitPriceExVat: AMOUNT + 1 })] }, 'body.lines[0].unitPriceExVat'],
    ['unitPriceExVat beyond 2^53', { docType: 305, lines: [line({ unitPriceExVat: 2 ** 53 + 2 })] }, 'body.lines[0].unitPriceExVat'],
    [
      'lineDiscount',
      { docType: 305, ...exempt, lines: [line({ quantity: 2, unitPriceExVat: AMOUNT, lineDiscount: AMOUNT + 1 })] },
      'body.lines[0].lineDiscount',
    ],
    ['line total over D110/1267', { docType: 305, ...exempt, lines: [line({ quantity: 2, unitPriceExVat: AMOUNT })] }, 'body.lines[0]'],
    ['quantity × price overflows', { docType: 305, lines: [line({ quantity: QTY, unitPriceExVat: AMOUNT })] }, 'body.lines[0]'],
    ['sum of lines that each fit', { docType: 305, ...exempt, lines: [line({ unitPriceExVat: AMOUNT }), line({ unitPriceExVat: 1 })] }, 'body.lines'],
    ['totalIncVat at 18%', { docType: 305, lines: [line({ unitPriceExVat: 84_745_762_711_864 })] }, 'body.lines'],
    ['discountAmount', { docType: 305, ...exempt, lines: [line({ unitPriceExVat: AMOUNT })], discountAmount: AMOUNT + 1 }, 'body.discountAmount'],
    ['payment amount', { docType: 400, payments: [{ method: 'cash', amount: AMOUNT + 1 }] }, 'body.payments[0].amount'],
    [
      'sum of payments',
      {
        docType: 400,
        payments: [
          { method: 'cash', amount: AMOUNT },
          { method: 'cash', amount: 1 },
        ],
      },
      'body.payments',
    ],
    ['withholdingAmount', { docType: 400, payments: [{ method: 'cash', amount: 100 }], withholdingAmount: WITHHOLDING + 1 }, 'body.withholdingAmount'],
    ['description', { docType: 305, lines: [line({ description: 'ג'.repeat(maxLength('lineDescription') + 1) })] }, 'body.lines[0].description'],
    ['description as written (₪ → ש"ח)', { docType: 305, lines: [line({ description: '₪'.repeat(11) })] }, 'body.lines[0].description'],
    ['sku', { docType: 305, lines: [line({ sku: 'S'.repeat(maxLength('lineSku') + 1) })] }, 'body.lines[0].sku'],
    ['unit', { docType: 305, lines: [line({ unit: 'u'.repeat(maxLength('lineUnit') + 1) })] }, 'body.lines[0].unit'],
    ['party name', { docType: 305, party: { name: 'א'.repeat(maxLength('partyName') + 1) }, lines: [line()] }, 'body.party.name'],
    ['party address', { docType: 305, party: { name: 'x', address: 'ב'.repeat(maxLength('partyAddress') + 1) }, lines: [line()] }, 'body.party.address'],
    ['party phone', { docType: 305, party: { name: 'x', phone: '0'.repeat(maxLength('partyPhone') + 1) }, lines: [line()] }, 'body.party.phone'],
    [
      'bank code digits',
      { docType: 400, payments: [{ method: 'cheque', amount: 1, bankCode: '9'.repeat(maxDigits('bankNo') + 1) }] },
      'body.payments[0].bankCode',
    ],
    [
      'branch code digits',
      { docType: 400, payments: [{ method: 'cheque', amount: 1, branchCode: '9'.repeat(maxDigits('bankBranch') + 1) }] },
      'body.payments[0].branchCode',
    ],
    [
      'account digits',
      { docType: 400, payments: [{ method: 'cheque', amount: 1, accountNumber: '9'.repeat(maxDigits('bankAccount') + 1) }] },
      'body.payments[0].accountNumber',
    ],
    [
      'cheque number digits',
      { docType: 400, payments: [{ method: 'cheque', amount: 1, checkNumber: '9'.repeat(maxDigits('chequeNo') + 1) }] },
      'body.payments[0].checkNumber',
    ],
    ['card name', { docType: 400, payments: [{ method: 'card', amount: 1, cardName: 'ה'.repeat(maxLength('cardName') + 1) }] }, 'body.payments[0].cardName'],
  ];
  for (const [name, body, field] of cases) it(name, () => expectRefused(bid, body, field));
});

describe('VAT rate exactly as decided', () => {
  let bid: string;
  beforeAll(async () => {
    bid = (await env.business(a.test)).id;
  });
  it('the rate in force, or 0 with a reason, is accepted', async () => {
    expect((await draft(bid, { docType: 305, vatRateBp: 1800, lines: [line()] })).status).toBe(201);
    expect((await draft(bid, { docType: 305, vatRateBp: 1700, documentDate: '2024-12-31', lines: [line()] })).status).toBe(201);
    expect((await draft(bid, { docType: 305, ...exempt, lines: [line()] })).status).toBe(201);
  });
  it('another rate is refused', () => expectRefused(bid, { docType: 305, vatRateBp: 500, lines: [line()] }, 'body.vatRateBp'));
  it('the rate of another date is refused', () => expectRefused(bid, { docType: 305, vatRateBp: 1700, lines: [line()] }, 'body.vatRateBp'));
  it('0 without a reason is refused', () => expectRefused(bid, { docType: 305, vatRateBp: 0, lines: [line()] }, 'body.vatExemptionReason'));
  it('a reason with a non-zero rate is refused', () =>
    expectRefused(bid, { docType: 305, vatRateBp: 1800, vatExemptionReason: 'eilat', lines: [line()] }, 'body.vatRateBp'));
  it('a reason with the default (non-zero) rate is refused', () =>
    expectRefused(bid, { docType: 305, vatExemptionReason: 'eilat', lines: [line()] }, 'body.vatExemptionReason'));
  it('the business default is accepted', async () => {
    const b = await env.business(a.test, { defaultVatRateBp: 1700 });
    expect((await draft(b.id, { docType: 305, vatRateBp: 1700, lines: [line()] })).status).toBe(201);
  });
});

describe('expenses', () => {
  let bid: string;
  const create = (body: Record<string, unknown>) => env.call('POST', `/v1/businesses/${bid}/expenses`, { key: a.test, body });
  beforeAll(async () => {
    bid = (await env.business(a.test)).id;
  });
  it('the largest amounts and texts are accepted and record', async () => {
    const max = maxAgorot('expenseAmount');
    const res = await create({
      supplier: { name: 'א'.repeat(maxLength('supplierName')) },
      supplierDocNumber: '1'.repeat(maxLength('expenseDocNumber')),
      supplierDocDate: '2026-02-01',
      categoryKey: 'office',
      amountExVat: max - 1,
      vatAmount: 1,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.expense.amountIncVat).toBe(max);
    const rec = await env.call('POST', `/v1/businesses/${bid}/expenses/${res.body.expense.id}/record`, { key: a.test });
    expect(rec.status, JSON.stringify(rec.body)).toBe(201);
  });
  const refused = async (body: Record<string, unknown>, field: string) => {
    const res = await create(body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.reason).toBe('validation');
    expect(res.body.error.startsWith(`${field}:`), res.body.error).toBe(true);
  };
  it('an amount over B100/1368', () => refused({ amountExVat: maxAgorot('expenseAmount') + 1 }, 'body.amountExVat'));
  it('a negative amount over B100/1368', () => refused({ amountIncVat: -maxAgorot('expenseAmount') - 1 }, 'body.amountIncVat'));
  it('a derived total over B100/1368', () => refused({ amountExVat: maxAgorot('expenseAmount'), vatAmount: 1 }, 'body.amountIncVat'));
  it('a supplier name over B110/1404', () => refused({ supplier: { name: 'א'.repeat(maxLength('supplierName') + 1) } }, 'body.supplier.name'));
  it('a document number over B100/1357', () => refused({ supplierDocNumber: '1'.repeat(maxLength('expenseDocNumber') + 1) }, 'body.supplierDocNumber'));
});
