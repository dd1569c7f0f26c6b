import { describe, expect, it } from 'vitest';
import { inputVatOf, INPUT_VAT_NEEDS_ALLOCATION, type InputVatFacts } from '../../src/expenses/input-vat.ts';
import { isAllocationNumber } from '../../src/platform/allocation-number.ts';
import { allocationNumberOf } from '../../src/allocation/ita-protocol.ts';
import { prefillFrom } from '../../src/expenses/ocr/extraction.ts';

const facts = (over: Partial<InputVatFacts>): InputVatFacts => ({
  dealerType: 'company',
  categoryKey: 'office',
  supplierDocType: 'tax_invoice',
  supplierDocDate: '2026-03-12',
  amountExVat: 1_200_000,
  vatAmount: 216_000,
  allocationNumber: null,
  ...over,
});

describe('input VAT by the allocation rule (issue 29)', () => {
  it.each<[string, Partial<InputVatFacts>, number, boolean]>([
    ['12,000 ₪ on 2026-03-12 without a number: nothing deducted', {}, 0, true],
    ['with a number: the whole VAT', { allocationNumber: '202603777' }, 216_000, false],
    ['000000000 (stored before the form was checked) is no number', { allocationNumber: '000000000' }, 0, true],
    ['10,000.00 exactly: not above', { amountExVat: 1_000_000, vatAmount: 180_000 }, 180_000, false],
    ['10,000.01: above', { amountExVat: 1_000_001, vatAmount: 180_000 }, 0, true],
    ['2025-12-31: 20,000 in force', { supplierDocDate: '2025-12-31' }, 216_000, false],
    ['2025-12-31, 20,000.01', { supplierDocDate: '2025-12-31', amountExVat: 2_000_001, vatAmount: 360_000 }, 0, true],
    ['2026-05-31: 10,000 still', { supplierDocDate: '2026-05-31', amountExVat: 600_000, vatAmount: 108_000 }, 108_000, false],
    ['2026-06-01: 5,000', { supplierDocDate: '2026-06-01', amountExVat: 600_000, vatAmount: 108_000 }, 0, true],
    ['2024-05-05: 25,000', { supplierDocDate: '2024-05-05', amountExVat: 2_500_001, vatAmount: 425_000 }, 0, true],
    ['2024-05-04: before the model', { supplierDocDate: '2024-05-04', amountExVat: 9_000_000, vatAmount: 1_530_000 }, 1_530_000, false],
    ['an invoice-receipt', { supplierDocType: 'tax_invoice_receipt' }, 0, true],
    ['no document type: a tax invoice', { supplierDocType: null }, 0, true],
    ['an import entry: not numbered by the model', { supplierDocType: 'import_entry' }, 216_000, false],
    ['a receipt: nothing to deduct anyway', { supplierDocType: 'receipt' }, 0, false],
    ['a supplier credit invoice', { supplierDocType: 'credit_invoice', amountExVat: -1_200_000, vatAmount: -216_000 }, -216_000, false],
    ['2/3 category', { categoryKey: 'communication' }, 0, true],
    ['2/3 category with a number', { categoryKey: 'communication', allocationNumber: '202603777' }, 144_000, false],
    ['a category with nothing to deduct', { categoryKey: 'gifts' }, 0, false],
    ['a patur dealer deducts nothing anyway', { dealerType: 'patur' }, 0, false],
    ['no VAT on the invoice', { vatAmount: 0 }, 0, false],
  ])('%s', (_name, over, deductible, warned) => {
    const r = inputVatOf(facts(over));
    expect(r.deductibleVat).toBe(deductible);
    expect(r.warnings.map((w) => w.code)).toEqual(warned ? [INPUT_VAT_NEEDS_ALLOCATION] : []);
    expect(r.refusal !== null).toBe(warned);
  });

  it('says what it did not deduct, and why, in the warning and the refusal', () => {
    const r = inputVatOf(facts({ categoryKey: 'communication' }));
    expect(r.warnings[0].message).toMatch(/of 2026-03-12 is 12000\.00 NIS before VAT, above the 10000\.00 NIS .*\(1440\.00 NIS\).*storno with redraft/);
    expect(r.refusal).toMatch(/set allocationNumber before recording$/);
  });
});

describe('the form of an allocation number: one rule', () => {
  it.each(['202603777', '000000001', '999999999'])('%s is one', (n) => expect(isAllocationNumber(n)).toBe(true));
  it.each(['000000000', '12345678', '1234567890', '12345678a', ' 12345678', '123-456-789', ''])('%j is not', (n) => expect(isAllocationNumber(n)).toBe(false));
  it('the authority answer, the OCR prefill and the request fields read it the same way', () => {
    expect(allocationNumberOf('20230820112155830232010517')).toBe('232010517');
    expect(allocationNumberOf('1000000000')).toBeNull(); // 9 right-most digits all zeros: no number
    expect(prefillFrom({ allocationNumber: '000-000-000' }).allocationNumber).toBeNull();
    expect(prefillFrom({ allocationNumber: '202 603 777' }).allocationNumber).toBe('202603777');
  });
});
