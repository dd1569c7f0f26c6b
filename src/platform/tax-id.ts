/**
 * Israeli tax ids (ת"ז, ח"פ, ע"ר, עוסק): 9 digits with a Luhn-style check digit
 * (weights 1,2,1,2,… from the left; a product over 9 loses 9; the sum is a multiple of 10).
 * Personal ids shorter than 9 digits are left-padded; registered entities (starting with 5)
 * must be written with all 9 digits, since padding one makes a valid personal id.
 */
export type TaxIdCheck = { ok: true; value: string } | { ok: false; problem: string };

export function checkDigitSum(nineDigits: string): number {
  let sum = 0;
  for (let i = 0; i < 9; i++) {
    let d = Number(nineDigits[i]) * (i % 2 === 0 ? 1 : 2);
    if (d > 9) d -= 9;
    sum += d;
  }
  return sum;
}

export function normalizeTaxId(input: string): TaxIdCheck {
  const compact = input.replace(/[\s-]/g, '');
  if (!/^\d+$/.test(compact)) return { ok: false, problem: 'must contain digits only' };
  if (compact.length > 9) return { ok: false, problem: 'must have at most 9 digits' };
  if (compact.startsWith('5') && compact.length < 9) {
    return { ok: false, problem: 'a company or NGO number (starting with 5) must have all 9 digits' };
  }
  const value = compact.padStart(9, '0');
  if (/^0+$/.test(value)) return { ok: false, problem: 'must not be all zeros' };
  if (checkDigitSum(value) % 10 !== 0) return { ok: false, problem: 'check digit does not match' };
  return { ok: true, value };
}

/** The check digit that completes 8 digits (used by tests and fixtures). */
export function completeTaxId(eightDigits: string): string {
  for (let d = 0; d <= 9; d++) {
    const candidate = `${eightDigits}${d}`;
    if (checkDigitSum(candidate) % 10 === 0) return candidate;
  }
  throw new Error('unreachable');
}
