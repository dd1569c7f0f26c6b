import { describe, expect, it } from 'vitest';
import { allocationEligibility, allocationThreshold } from '../../src/documents/allocation-eligibility.ts';

const base = { docType: 305, vatAmount: 1, partyTaxId: '516179157' };

describe('allocation threshold by document date', () => {
  it.each([
    ['2024-05-04', null],
    ['2024-05-05', 2_500_000],
    ['2024-12-31', 2_500_000],
    ['2025-01-01', 2_000_000],
    ['2025-12-31', 2_000_000],
    ['2026-01-01', 1_000_000],
    ['2026-05-31', 1_000_000],
    ['2026-06-01', 500_000],
    ['2030-01-01', 500_000],
  ])('%s → %s', (date, expected) => {
    expect(allocationThreshold(date)).toBe(expected);
  });
});

describe('allocation eligibility', () => {
  it.each([
    // date, totalExVat, required
    ['2024-05-04', 99_999_999, false],
    ['2024-05-05', 2_500_000, false],
    ['2024-05-05', 2_500_001, true],
    ['2025-01-01', 2_000_000, false],
    ['2025-01-01', 2_000_001, true],
    ['2024-12-31', 2_000_001, false],
    ['2026-01-01', 1_000_000, false],
    ['2026-01-01', 1_000_001, true],
    ['2025-12-31', 1_000_001, false],
    ['2026-06-01', 500_000, false],
    ['2026-06-01', 500_001, true],
    ['2026-05-31', 500_001, false],
    ['2026-05-31', 1_000_001, true],
  ])('%s, %i agorot before VAT → %s', (documentDate, totalExVat, required) => {
    expect(allocationEligibility({ ...base, documentDate, totalExVat }).required).toBe(required);
  });

  it('applies to 305 and 320 only', () => {
    for (const docType of [305, 320]) expect(allocationEligibility({ ...base, docType, documentDate: '2026-07-01', totalExVat: 600_000 }).required).toBe(true);
    for (const docType of [330, 400]) expect(allocationEligibility({ ...base, docType, documentDate: '2026-07-01', totalExVat: 600_000 }).required).toBe(false);
  });

  it('needs VAT on the document and a buyer tax id', () => {
    const d = { ...base, documentDate: '2026-07-01', totalExVat: 600_000 };
    expect(allocationEligibility({ ...d, vatAmount: 0 }).required).toBe(false);
    expect(allocationEligibility({ ...d, partyTaxId: null }).required).toBe(false);
    expect(allocationEligibility({ ...d, partyTaxId: '' }).required).toBe(false);
  });
});
