import { describe, expect, it } from 'vitest';
import { completeTaxId, normalizeTaxId } from '../../src/platform/tax-id.ts';

describe('Israeli tax id check digit (israel-tax.md §1.3)', () => {
  it.each([
    ['039337423', '039337423'],
    ['3933742-3', '039337423'],
    ['123456782', '123456782'],
    ['050012343', '050012343'],
    ['516179157', '516179157'],
    ['512200502', '512200502'],
    ['580123453', '580123453'],
    ['777777715', '777777715'],
    [' 516 179 157 ', '516179157'],
  ])('%s is valid as %s', (input, value) => {
    expect(normalizeTaxId(input)).toEqual({ ok: true, value });
  });

  it.each([
    ['123456789', 'check digit'],
    ['039337422', 'check digit'],
    ['516179150', 'check digit'],
    ['999999999', 'check digit'],
    ['000000000', 'zeros'],
    ['0', 'zeros'],
    ['1234567890', 'at most 9'],
    ['51617915', 'all 9 digits'],
    // decisions.md: an 8-digit number starting with 5 is refused, though padding would make a valid personal id.
    ['50012343', 'all 9 digits'],
    ['5801234', 'all 9 digits'],
    ['12a456782', 'digits only'],
    ['', 'digits only'],
  ])('%s is refused (%s)', (input, problem) => {
    const r = normalizeTaxId(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toContain(problem);
  });

  it('completes 8 digits with their check digit', () => {
    expect(completeTaxId('58012345')).toBe('580123453');
    expect(completeTaxId('51617915')).toBe('516179157');
  });
});
