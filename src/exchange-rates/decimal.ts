/**
 * Rates are decimal strings, handled as text: a float cannot hold 0.01971 exactly, and a rate is
 * copied onto documents and into the books as written. Pure functions.
 */

/** Largest rate the API takes: 12 integer digits, 10 decimals (the column's CHECK says the same). */
export const RATE_INTEGER_DIGITS = 12;
export const RATE_DECIMALS = 10;

/** What the API accepts as a rate (the schema pattern); zero is refused by `rateProblem`. */
export const RATE_PATTERN = `^[0-9]{1,${RATE_INTEGER_DIGITS}}(\\.[0-9]{1,${RATE_DECIMALS}})?$`;

const DECIMAL = /^([0-9]+)(?:\.([0-9]+))?$/;

/** `003.50` → `3.5`: no leading zeros, no trailing decimal zeros. Null when not a plain decimal. */
export function canonicalDecimal(text: string): string | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const integer = m[1].replace(/^0+(?=\d)/, '');
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  return fraction ? `${integer}.${fraction}` : integer;
}

/**
 * `value` divided by 10^places, exactly, by moving the decimal point (the Bank of Israel quotes
 * JPY per 100 units: UNIT_MULT 2). Null when `value` is not a plain decimal.
 */
export function shiftDecimalLeft(value: string, places: number): string | null {
  const m = DECIMAL.exec(value.trim());
  if (!m || !Number.isInteger(places) || places < 0) return null;
  const digits = m[1] + (m[2] ?? '');
  let point = m[1].length - places;
  const padded = point <= 0 ? '0'.repeat(1 - point) + digits : digits;
  if (point <= 0) point = 1;
  return canonicalDecimal(`${padded.slice(0, point)}.${padded.slice(point)}`);
}

/** Why `rate` is not an acceptable rate, or null when it is (positive, within the digit limits). */
export function rateProblem(rate: string): string | null {
  const m = DECIMAL.exec(rate);
  if (!m) return 'must be a decimal number written with digits and an optional point, e.g. "3.7125"';
  if (m[1].replace(/^0+/, '').length > RATE_INTEGER_DIGITS) return `has more than ${RATE_INTEGER_DIGITS} integer digits`;
  if ((m[2] ?? '').length > RATE_DECIMALS) return `has more than ${RATE_DECIMALS} decimal places`;
  if (!/[1-9]/.test(rate)) return 'must be more than zero';
  return null;
}
