import { validation } from '../platform/errors.ts';

export interface Amounts {
  amountExVat: number | null;
  vatAmount: number | null;
  amountIncVat: number | null;
}

/**
 * Completes the three amounts of an expense (agorot) when two are known: the third is derived so
 * that amountExVat + vatAmount = amountIncVat always holds. Three given must agree. All three
 * non-null must share one sign (a supplier credit invoice or a storno is negative throughout).
 * `prefix` names the field path in errors (e.g. `body`).
 */
export function completeAmounts(a: Amounts, prefix = 'body'): Amounts {
  let { amountExVat: ex, vatAmount: vat, amountIncVat: inc } = a;
  const known = [ex, vat, inc].filter((v) => v !== null).length;
  if (known === 3 && ex! + vat! !== inc) {
    throw validation(`${prefix}.amountIncVat`, `must equal amountExVat + vatAmount (${ex! + vat!}), got ${inc}`);
  }
  if (known === 2) {
    if (inc === null) inc = ex! + vat!;
    else if (vat === null) vat = inc - ex!;
    else ex = inc - vat;
  }
  const values = [ex, vat, inc].filter((v): v is number => v !== null);
  if (values.some((v) => v > 0) && values.some((v) => v < 0)) {
    const field = vat !== null && inc !== null && Math.sign(vat) * Math.sign(inc) < 0 ? 'vatAmount' : 'amountExVat';
    throw validation(`${prefix}.${field}`, 'amounts must all have the same sign (all negative only on a credit)');
  }
  if (vat !== null && inc !== null && Math.abs(vat) > Math.abs(inc)) {
    throw validation(`${prefix}.vatAmount`, 'cannot exceed the amount including VAT');
  }
  return { amountExVat: ex, vatAmount: vat, amountIncVat: inc };
}

/** What recording needs: every amount known. Names the first missing field. */
export function requireCompleteAmounts(a: Amounts, prefix = 'expense'): { amountExVat: number; vatAmount: number; amountIncVat: number } {
  const c = completeAmounts(a, prefix);
  for (const k of ['amountIncVat', 'amountExVat', 'vatAmount'] as const) {
    if (c[k] === null) throw validation(`${prefix}.${k}`, 'is required to record (give at least two of amountExVat, vatAmount, amountIncVat)');
  }
  return c as { amountExVat: number; vatAmount: number; amountIncVat: number };
}
