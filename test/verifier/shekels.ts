/**
 * The independent verifier's reading of a foreign-currency document (part of openfrmt-verifier.ts, nothing
 * from src/): OPENFRMT's leading currency is ILS (A000/1032), so its C100/D110/D120 carry shekels, with its
 * total in its currency in 1217 and the code in 1218. The shekel figures are recomputed here from the
 * document's own figures and rate, by docs/currency.md (each line: quantity × the unit price converted −
 * the line discount converted; VAT, discount and withholding converted on their own, a credit note's
 * over the credits of its original before it; payments each within an agora of their own value, adding up
 * to what they settle) and docs/documents.md "Partial credit notes" (the credit that ends its original in
 * the currency is one unit whose shekels are what is left). Amounts are agorot, in BigInt.
 */
import { tenThousandthsOf } from './quantities.ts';

/** What the C100, D110 and D120 of a document must carry, in agorot. */
export interface Written {
  T: { ex: bigint; vat: bigint; inc: bigint };
  disc: bigint;
  wh: bigint;
  prices: bigint[];
  lineDiscounts: bigint[];
  lineAmounts: bigint[];
  payments: bigint[];
}

/** The few fields of an API document this reads. */
export interface ForeignDoc {
  id: string;
  docType: number;
  docNumber: number | null;
  priceMode: string;
  linkedDocumentId: string | null;
  currency?: string;
  exchangeRate?: string | null;
  ils?: { totalExVat: number; vatAmount: number; totalIncVat: number; discountAmount: number; withholdingAmount: number } | null;
  lines: { quantity: number; unitPriceExVat: number; lineDiscount: number; amountIls?: number }[];
  payments: { amount: number; amountIls?: number }[];
  totalExVat: number;
  vatAmount: number;
  totalIncVat: number;
  discountAmount: number;
  withholdingAmount: number;
}

export const isForeign = (d: ForeignDoc) => !!d.currency && d.currency !== 'ILS' && !!d.exchangeRate;

function divRound(n: bigint, d: bigint): bigint {
  const neg = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (2n * an + ad) / (2n * ad);
  return neg ? -q : q;
}
const abs = (x: bigint) => (x < 0n ? -x : x);
const sum = (xs: bigint[]) => xs.reduce((a, x) => a + x, 0n);

/** The currency's minor units, from the runtime's ISO 4217 table. */
function minorUnits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Minor units of the currency → agorot at the rate, half away from zero. */
function converter(currency: string, rate: string): (minor: bigint) => bigint {
  const [whole, frac = ''] = rate.split('.');
  const num = BigInt(whole + frac);
  const den = 10n ** BigInt(frac.length + minorUnits(currency));
  return (minor) => divRound(minor * num * 100n, den);
}

/** C100/1217: the total in the currency's hundredths (a yen total × 100). */
export function foreignTotal(d: ForeignDoc): bigint {
  const digits = minorUnits(d.currency!);
  const t = BigInt(d.totalIncVat);
  return digits <= 2 ? t * 10n ** BigInt(2 - digits) : divRound(t, 10n ** BigInt(digits - 2));
}

/** The credits of `d`'s original numbered before it. */
function creditsBefore(d: ForeignDoc, all: Iterable<ForeignDoc>): ForeignDoc[] {
  if (d.docType !== 330 || !d.linkedDocumentId || d.docNumber === null) return [];
  return [...all].filter((c) => c.docType === 330 && c.linkedDocumentId === d.linkedDocumentId && c.docNumber !== null && c.docNumber < d.docNumber!);
}

/** The shekel figures of a foreign-currency document, recomputed; each frozen figure that differs is reported. */
export function foreignWritten(d: ForeignDoc, byId: Map<string, ForeignDoc>, bad: (reason: string) => void): Written {
  const conv = converter(d.currency!, d.exchangeRate!);
  const gross = d.priceMode === 'gross';
  const original = d.docType === 330 && d.linkedDocumentId ? byId.get(d.linkedDocumentId) : undefined;
  const before = creditsBefore(d, byId.values());
  const took = (f: (c: ForeignDoc) => number) => BigInt(before.reduce((a, c) => a + f(c), 0));
  // A credit's VAT and discount are converted over the credits before it; anything else on its own.
  const over = (earlier: bigint, x: bigint) => conv(earlier + x) - conv(earlier);
  const vat = over(
    took((c) => c.vatAmount),
    BigInt(d.vatAmount),
  );
  const disc = over(
    took((c) => c.discountAmount),
    BigInt(d.discountAmount),
  );
  const wh = conv(BigInt(d.withholdingAmount));
  const prices = d.lines.map((l) => conv(BigInt(l.unitPriceExVat)));
  const lineDiscounts = d.lines.map((l) => conv(BigInt(l.lineDiscount)));
  const lineAmounts = d.lines.map((l, i) => divRound(tenThousandthsOf(l.quantity) * prices[i], 10_000n) - lineDiscounts[i]);
  // The credit that ends its original in the currency: one unit, what is left of it in shekels.
  const ends =
    original?.ils &&
    d.lines.length === 1 &&
    d.lines[0].quantity === 1 &&
    d.lines[0].lineDiscount === 0 &&
    took((c) => c.totalExVat) + BigInt(d.totalExVat) === BigInt(original.totalExVat) &&
    took((c) => c.totalIncVat) + BigInt(d.totalIncVat) === BigInt(original.totalIncVat);
  if (ends && original?.ils) {
    const ilsOf = (c: ForeignDoc) => c.ils ?? { totalExVat: 0, totalIncVat: 0 };
    const left = gross
      ? BigInt(original.ils.totalIncVat) - took((c) => ilsOf(c).totalIncVat)
      : BigInt(original.ils.totalExVat) - took((c) => ilsOf(c).totalExVat);
    lineAmounts[0] = left + disc;
    prices[0] = lineAmounts[0];
  }
  let ex: bigint;
  let inc: bigint;
  if (d.lines.length === 0) {
    ex = conv(BigInt(d.totalExVat));
    inc = ex + vat;
  } else if (gross) {
    inc = sum(lineAmounts) - disc;
    ex = inc - vat;
  } else {
    ex = sum(lineAmounts) - disc;
    inc = ex + vat;
  }
  const T = { ex, vat, inc };
  const ils = d.ils;
  if (!ils) bad('a foreign-currency document without its shekel figures (ils)');
  else if (BigInt(ils.totalExVat) !== ex || BigInt(ils.vatAmount) !== vat || BigInt(ils.totalIncVat) !== inc || BigInt(ils.discountAmount) !== disc)
    bad(
      `the API's shekel figures ${ils.totalExVat}/${ils.vatAmount}/${ils.totalIncVat} (discount ${ils.discountAmount}) ≠ recomputed ${ex}/${vat}/${inc} (${disc}) at ${d.exchangeRate} (docs/currency.md)`,
    );
  d.lines.forEach((l, i) => {
    if (l.amountIls !== undefined && BigInt(l.amountIls) !== lineAmounts[i])
      bad(
        `line ${i + 1}: the API's shekel amount ${l.amountIls} ≠ recomputed ${lineAmounts[i]} (docs/currency.md: quantity × the price converted − the discount converted)`,
      );
  });
  // Payments: each within an agora of its own value, together what they settle (docs/currency.md).
  const payments = d.payments.map((p) => BigInt(p.amountIls ?? 0));
  d.payments.forEach((p, i) => {
    if (p.amountIls === undefined || abs(payments[i] - conv(BigInt(p.amount))) > 1n)
      bad(`payment ${i + 1}: the API's shekel amount ${p.amountIls} is not ${p.amount} converted at ${d.exchangeRate} (±1 agora)`);
  });
  const settles = d.docType === 320 ? inc - wh : inc;
  if (d.payments.length && sum(payments) !== settles) bad(`the payments' shekel amounts add up to ${sum(payments)}, they settle ${settles}`);
  return { T, disc, wh, prices, lineDiscounts, lineAmounts, payments };
}
