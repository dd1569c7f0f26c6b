/**
 * A document in a foreign currency (issue 21), pure: amounts are integers in the currency's minor
 * units; `exchangeRate` is a decimal string, shekels for one unit. The shekel figures are computed
 * once, at issue, and frozen in the snapshot (docs/currency.md):
 *
 * - each line's unit price and line discount is converted on its own (amount × rate, to the agora,
 *   half away from zero), and the line's shekel amount is quantity × that price − that discount, by
 *   the one line rule (totals.ts lineAmount): what OPENFRMT D110 says, 1267 = 1264 × 1265 − 1266;
 * - the lines in shekels make the shekel total before VAT (or, in `gross` mode, including VAT) less
 *   the discount converted on its own; VAT and withholding are converted on their own, and
 *   totalIncVat = totalExVat + vatAmount, so the books balance to the agora. A receipt (no lines)
 *   converts its totals on their own;
 * - payment amounts are converted and then adjusted by the largest-remainder method so that they add
 *   up exactly to the shekel figure they settle (never more than one agora each from their own value).
 *
 * Each line's and payment's shekel amount is stored in the snapshot (`amountIls`); readers take it
 * from there. Snapshots issued before issue 29 hold no such amounts: for them the readers below
 * compute them as issue did then (lines allocated by largest remainder to the frozen totals).
 *
 * All arithmetic is in BigInt over the decimal digits of the rate: no binary fractions.
 */
import { minorUnitsOf, SHEKEL } from '../platform/currencies.ts';
import { divideHalfAwayFromZero } from '../platform/money.ts';
import type { DocType, Totals } from './figures.ts';
import { DOC_TYPES } from './doc-types.ts';
import { lineAmount } from './totals.ts';
import type { PriceMode } from './lists.ts';

/** Rate text: a positive decimal, up to 6 integer digits and 10 decimals (BoI quotes 4–6 decimals). */
export const EXCHANGE_RATE_PATTERN = '^(?!0+(\\.0+)?$)\\d{1,6}(\\.\\d{1,10})?$';
const RATE = new RegExp(EXCHANGE_RATE_PATTERN);

export function isExchangeRate(text: string): boolean {
  return RATE.test(text);
}

/** A rate as an exact fraction: numerator / 10^scale. */
interface Fraction {
  numerator: bigint;
  denominator: bigint;
}

function rateFraction(rate: string): Fraction {
  if (!RATE.test(rate)) throw new Error(`not an exchange rate: ${rate}`);
  const [whole, frac = ''] = rate.split('.');
  return { numerator: BigInt(whole + frac), denominator: 10n ** BigInt(frac.length) };
}

/** The exact shekel value of `minor` units of `currency` at `rate`, as agorot × denominator (unrounded). */
function agorotFraction(minor: number, currency: string, rate: string): Fraction {
  const r = rateFraction(rate);
  const unitScale = 10n ** BigInt(minorUnitsOf(currency));
  return { numerator: BigInt(minor) * r.numerator * 100n, denominator: r.denominator * unitScale };
}

/** `minor` units of `currency` in agorot at `rate` (shekels per unit), half away from zero. */
export function toAgorot(minor: number, currency: string, rate: string): number {
  if (currency === SHEKEL) return minor;
  const f = agorotFraction(minor, currency, rate);
  return Number(divideHalfAwayFromZero(f.numerator, f.denominator));
}

/**
 * Converts each amount and makes them add up to `targetAgorot` exactly: each starts rounded toward
 * zero and the agorot left over go to the largest remainders (ties: the first), so no amount moves
 * by more than one agora from its own exact value when the target is the rounded exact sum.
 */
export function allocateAgorot(amounts: number[], currency: string, rate: string, targetAgorot: number): number[] {
  if (currency === SHEKEL) return [...amounts];
  if (amounts.length === 0) return [];
  const parts = amounts.map((a) => agorotFraction(a, currency, rate));
  const d = parts[0].denominator;
  const floors = parts.map((p) => p.numerator / d); // BigInt division truncates toward zero
  const remainders = parts.map((p, i) => p.numerator - floors[i] * d);
  let left = BigInt(targetAgorot) - floors.reduce((a, b) => a + b, 0n);
  const out = floors.slice();
  const step = left > 0n ? 1n : -1n;
  // Toward the target: the largest remainders in the direction of the shortfall first.
  const order = amounts
    .map((_, i) => i)
    .sort((i, j) => {
      const a = step > 0n ? remainders[i] : -remainders[i];
      const b = step > 0n ? remainders[j] : -remainders[j];
      return a === b ? i - j : a > b ? -1 : 1;
    });
  for (let k = 0; left !== 0n; k = (k + 1) % order.length) {
    out[order[k]] += step;
    left -= step;
  }
  return out.map(Number);
}

/** The figures of a document in its own currency that its shekel figures are made from. */
export interface CurrencyFigures {
  docType: DocType;
  priceMode: PriceMode;
  lines: readonly { quantity: number; unitPriceExVat: number; lineDiscount?: number | null }[];
  payments: readonly { amount: number }[];
  totals: Totals;
}

/** A document's shekel figures: its five totals, each line's amount and each payment's, in agorot. */
export interface ShekelFigures {
  ils: Totals;
  lineAmounts: number[];
  paymentAmounts: number[];
}

/** Each line in shekels: its unit price and discount converted, then the one line rule. */
function ilsLines(d: CurrencyFigures, currency: string, rate: string): number[] {
  return d.lines.map((l) =>
    lineAmount({
      quantity: l.quantity,
      unitPriceExVat: toAgorot(l.unitPriceExVat, currency, rate),
      lineDiscount: toAgorot(l.lineDiscount ?? 0, currency, rate),
    }),
  );
}

/** The shekel figures of a document (see the header for the rule); a shekel document's own. */
export function shekelFigures(d: CurrencyFigures, currency: string, rate: string | null): ShekelFigures {
  const t = d.totals;
  if (currency === SHEKEL || rate === null) {
    const ils = {
      totalExVat: t.totalExVat,
      vatAmount: t.vatAmount,
      totalIncVat: t.totalIncVat,
      discountAmount: t.discountAmount,
      withholdingAmount: t.withholdingAmount,
    };
    return { ils, lineAmounts: d.lines.map(lineAmount), paymentAmounts: d.payments.map((p) => p.amount) };
  }
  const lineAmounts = ilsLines(d, currency, rate);
  const vatAmount = toAgorot(t.vatAmount, currency, rate);
  const discountAmount = toAgorot(t.discountAmount, currency, rate);
  const withholdingAmount = toAgorot(t.withholdingAmount, currency, rate);
  let totalExVat = toAgorot(t.totalExVat, currency, rate);
  if (DOC_TYPES[d.docType].totalsFrom === 'lines') {
    const lines = lineAmounts.reduce((a, x) => a + x, 0) - discountAmount;
    totalExVat = d.priceMode === 'gross' ? lines - vatAmount : lines;
  }
  const ils = { totalExVat, vatAmount, totalIncVat: totalExVat + vatAmount, discountAmount, withholdingAmount };
  const paymentAmounts = ilsPayments(
    d.payments.map((p) => p.amount),
    { currency, rate, ils, docType: d.docType },
  );
  return { ils, lineAmounts, paymentAmounts };
}

/**
 * The shekel amount of each payment: they add up to what they settle in shekels — the amount received
 * of a receipt (its totalIncVat), or a 320's total less the tax withheld.
 */
export function ilsPayments(
  amounts: number[],
  { currency, rate, ils, docType }: { currency: string; rate: string | null; ils: Totals; docType: DocType },
): number[] {
  if (currency === SHEKEL || rate === null) return [...amounts];
  const target = DOC_TYPES[docType].payments === 'are-the-total' ? ils.totalIncVat : ils.totalIncVat - ils.withholdingAmount;
  return allocateAgorot(amounts, currency, rate, target);
}

/**
 * A payment's amount in its own currency: `amount` minor units of the document's currency at the
 * document's rate, at the payment's rate (shekels per unit of the payment currency), to the payment
 * currency's minor unit.
 */
export function paymentInOwnCurrency(
  amount: number,
  { docCurrency, docRate, payCurrency, payRate }: { docCurrency: string; docRate: string | null; payCurrency: string; payRate: string | null },
): number {
  if (payCurrency === docCurrency) return amount;
  const agorotExact = docCurrency === SHEKEL ? { numerator: BigInt(amount), denominator: 1n } : agorotFraction(amount, docCurrency, docRate!);
  if (payCurrency === SHEKEL) return Number(divideHalfAwayFromZero(agorotExact.numerator, agorotExact.denominator));
  const r = rateFraction(payRate!);
  const payScale = 10n ** BigInt(minorUnitsOf(payCurrency));
  // agorot / 100 / rate × 10^minor = agorot × r.den × payScale / (100 × r.num)
  return Number(divideHalfAwayFromZero(agorotExact.numerator * r.denominator * payScale, agorotExact.denominator * 100n * r.numerator));
}

/** `minor` units as a decimal string of the currency (12345 USD → "123.45", 5 JPY → "5", 1234 KWD → "1.234"). */
export function formatMinor(minor: number, currency: string): string {
  const digits = minorUnitsOf(currency);
  const negative = minor < 0;
  const s = String(Math.abs(minor)).padStart(digits + 1, '0');
  const text = digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`;
  return negative ? `-${text}` : text;
}

/**
 * `minor` units expressed in hundredths of the unit (OPENFRMT's foreign amounts carry 2 decimals):
 * JPY 5 → 500; KWD 1.234 (1234) → 123 (half away from zero).
 */
export function toHundredths(minor: number, currency: string): number {
  const digits = minorUnitsOf(currency);
  if (digits === 2) return minor;
  if (digits < 2) return minor * 10 ** (2 - digits);
  return Number(divideHalfAwayFromZero(BigInt(minor), 10n ** BigInt(digits - 2)));
}

/** What the readers of a frozen snapshot need of it. */
interface FrozenFigures {
  docType: DocType;
  priceMode?: PriceMode;
  lines?: readonly { amount: number; amountIls?: number }[];
  payments: readonly { amount: number; amountIls?: number }[];
  currency?: string;
  exchangeRate?: string | null;
  totals?: Totals;
  ils?: Totals;
}

const foreign = (snap: FrozenFigures): snap is FrozenFigures & { currency: string; exchangeRate: string; ils: Totals } =>
  !!snap.currency && snap.currency !== SHEKEL && !!snap.exchangeRate && !!snap.ils;

/** The shekel amount of each payment of a frozen snapshot, as issue stored it (they add up to what they settle). */
export function ilsPaymentAmounts(snap: FrozenFigures): number[] {
  if (!foreign(snap)) return snap.payments.map((p) => p.amount);
  if (snap.payments.every((p) => p.amountIls !== undefined)) return snap.payments.map((p) => p.amountIls!);
  // A snapshot from before issue 29 stored none: computed as issue did then.
  return ilsPayments(
    snap.payments.map((p) => p.amount),
    { currency: snap.currency, rate: snap.exchangeRate, ils: snap.ils, docType: snap.docType },
  );
}

/** The shekel amount of each line of a frozen snapshot, as issue stored it (they add up to the lines' shekel total). */
export function ilsLineAmounts(snap: FrozenFigures): number[] {
  const lines = snap.lines ?? [];
  if (!foreign(snap)) return lines.map((l) => l.amount);
  if (lines.every((l) => l.amountIls !== undefined)) return lines.map((l) => l.amountIls!);
  // A snapshot from before issue 29 stored none: its lines were then allocated by largest remainder to
  // the frozen shekel total of the lines (before the discount; including VAT in `gross` mode).
  const t = snap.ils;
  const target = snap.priceMode === 'gross' ? t.totalIncVat + t.discountAmount : t.totalExVat + t.discountAmount;
  return allocateAgorot(
    lines.map((l) => l.amount),
    snap.currency,
    snap.exchangeRate,
    target,
  );
}
