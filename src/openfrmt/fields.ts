/**
 * Field pictures of the uniform structure (spec §2.3): every writer builds a record from these,
 * and every one refuses a value that does not fit instead of cutting digits.
 */
import { quantityTenThousandths } from '../platform/money.ts';
import { foldToRepertoire } from './charset.ts';

export class FieldError extends Error {}

/** `X(n)`: text folded to ISO-8859-8, left-aligned, space-filled; longer text is cut to n. */
export function alpha(value: string | null | undefined, n: number): string {
  const text = foldToRepertoire(value ?? '');
  return text.length >= n ? text.slice(0, n) : text + ' '.repeat(n - text.length);
}

/** `9(n)`: digits only, right-aligned, zero-filled; empty → zeros. */
export function num(value: string | number | null | undefined, n: number, field = 'numeric'): string {
  if (value === null || value === undefined || value === '') return '0'.repeat(n);
  // A non-negative safe integer prints as digits only: no need to test them.
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) {
    const printed = String(value);
    if (printed.length > n) throw new FieldError(`${field}: "${printed}" does not fit in ${n} digits`);
    return printed.padStart(n, '0');
  }
  const digits = typeof value === 'number' ? String(value) : value;
  if (!/^\d+$/.test(digits)) throw new FieldError(`${field}: "${digits}" is not a non-negative integer`);
  if (digits.length > n) throw new FieldError(`${field}: "${digits}" does not fit in ${n} digits`);
  return digits.padStart(n, '0');
}

/**
 * `X9(i)v(d)`: a sign (`+`, also for zero) then i+d zero-filled digits, the decimal point implied.
 * `scaled` is the value already multiplied by 10^d (agorot for v99).
 */
export function signed(scaled: number, intDigits: number, decDigits: number, field = 'amount'): string {
  if (!Number.isSafeInteger(scaled)) throw new FieldError(`${field}: ${scaled} is not an integer of the smallest unit`);
  const width = intDigits + decDigits;
  const digits = String(Math.abs(scaled));
  if (digits.length > width) throw new FieldError(`${field}: ${scaled} does not fit in X9(${intDigits})v${'9'.repeat(decDigits)}`);
  return (scaled < 0 ? '-' : '+') + digits.padStart(width, '0');
}

/** `X9(12)v99` in agorot. */
export const amount15 = (agorot: number, field?: string) => signed(agorot, 12, 2, field);
/** `X9(9)v99` in agorot. */
export const amount12 = (agorot: number, field?: string) => signed(agorot, 9, 2, field);

/** A quantity as D110/1264 carries it (`X9(12)v9999`): the one rounding of quantities, platform/money.ts. */
export const quantityField = (qty: number): number =>
  // Not a number stays one: the picture's writer refuses it, naming the field.
  Number.isFinite(qty) ? quantityTenThousandths(qty) : Number.NaN;

/** `X9(12)v9999`: a quantity with four implied decimals. */
export function quantity17(qty: number, field = 'quantity'): string {
  return signed(quantityField(qty), 12, 4, field);
}

/** Unsigned `9(i)v(d)` from a value already scaled by 10^d (VAT rate in basis points → `9(2)v99`). */
export function unsignedScaled(scaled: number, intDigits: number, decDigits: number, field = 'amount'): string {
  if (!Number.isSafeInteger(scaled) || scaled < 0) throw new FieldError(`${field}: ${scaled} is not a non-negative scaled integer`);
  return num(scaled, intDigits + decDigits, field);
}

/** `YYYYMMDD` from `YYYY-MM-DD`; empty → zeros. */
export function date8(isoDate: string | null | undefined, field = 'date'): string {
  if (!isoDate) return '00000000';
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (!m) throw new FieldError(`${field}: "${isoDate}" is not YYYY-MM-DD`);
  return m[1] + m[2] + m[3];
}

/** `HHMM` (24h) from `HH:MM`; empty → zeros. */
export function time4(hhmm: string | null | undefined, field = 'time'): string {
  if (!hhmm) return '0000';
  const m = /^([01]\d|2[0-3]):?([0-5]\d)$/.exec(hhmm);
  if (!m) throw new FieldError(`${field}: "${hhmm}" is not HH:MM`);
  return m[1] + m[2];
}

/** Concatenates fields and checks the record has the length of its layout. */
export function record(code: string, expectedLength: number, fields: string[]): string {
  const out = fields.join('');
  if (out.length !== expectedLength) throw new FieldError(`${code}: built ${out.length} characters, layout has ${expectedLength}`);
  return out;
}
