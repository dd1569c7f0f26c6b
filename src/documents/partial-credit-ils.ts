/**
 * The shekel figures of a partial credit of a foreign-currency document (issue 29), pure. A credit note
 * corrects the document it names (VAT Law §21, §49; bookkeeping instructions §23א): it keeps the
 * original's currency and exchange rate and is never converted at another rate (docs/currency.md
 * "Credits"). Its shekel figures are made as the original's were (currency.ts `shekelFigures`), so the
 * export's lines still say 1267 = 1264 × 1265 − 1266, except that:
 *
 * - its VAT and document discount are converted over the credits so far (conv(so far + this) less
 *   conv(so far)), so together they end exactly on the original's shekel VAT and discount;
 * - a credit of one line (an `amount`, or the `remainder`) that takes what is left of the document in its
 *   currency takes what is left in shekels too, to the agora (the line's shekel price is its amount:
 *   quantity 1, no discount);
 * - the credits keep the two currencies in step: a credit that would leave nothing in one and something
 *   in the other (a line split over credits whose shekel amounts round apart) is refused 409, and the
 *   credit with no body closes both.
 */
import { conflict } from '../platform/errors.ts';
import { toAgorot } from './currency.ts';
import { lineAmount } from './totals.ts';
import type { Totals } from './snapshot.ts';
import type { CreditedPart, DocumentLine, DocumentSnapshot } from './snapshot-types.ts';

/** The shekel totals of the credits written before, summed. */
export type IlsSoFar = Pick<Totals, 'totalExVat' | 'vatAmount' | 'totalIncVat'>;

const sum = (xs: number[]) => xs.reduce((a, x) => a + x, 0);

/** A credit's shekel totals and its lines with their frozen shekel amounts (`amountIls`). */
export function creditShekels(a: {
  original: DocumentSnapshot;
  /** The currency figures of the credits before (VAT and document discount) and their shekel totals. */
  before: { vatAmount: number; discountAmount: number; ils: IlsSoFar };
  lines: DocumentLine[];
  totals: Totals;
  credited: CreditedPart;
  /** This credit takes what is left of the document in its currency. */
  closesCurrency: boolean;
}): { ils: Totals; lines: DocumentLine[] } {
  const o = a.original;
  const currency = o.currency!;
  const rate = o.exchangeRate!;
  const whole = o.ils!;
  const conv = (x: number) => toAgorot(x, currency, rate);
  const over = (before: number, part: number) => conv(before + part) - conv(before);
  const gross = o.priceMode === 'gross';
  const vatAmount = over(a.before.vatAmount, a.totals.vatAmount);
  const discountAmount = over(a.before.discountAmount, a.totals.discountAmount);
  const oneLine = a.credited.kind === 'amount' || a.credited.kind === 'remainder';
  const leftOfLines = gross ? whole.totalIncVat - a.before.ils.totalIncVat : whole.totalExVat - a.before.ils.totalExVat;
  const lineIls =
    oneLine && a.closesCurrency
      ? [leftOfLines + discountAmount]
      : a.lines.map((l) => lineAmount({ quantity: l.quantity, unitPriceExVat: conv(l.unitPriceExVat), lineDiscount: conv(l.lineDiscount) }));
  const ofLines = sum(lineIls) - discountAmount;
  const totalExVat = gross ? ofLines - vatAmount : ofLines;
  const ils = { totalExVat, vatAmount, totalIncVat: totalExVat + vatAmount, discountAmount, withholdingAmount: 0 };
  const leftEx = whole.totalExVat - a.before.ils.totalExVat;
  const leftInc = whole.totalIncVat - a.before.ils.totalIncVat;
  const closesShekels = ils.totalExVat === leftEx && ils.totalIncVat === leftInc;
  if (ils.totalExVat > leftEx || ils.totalIncVat > leftInc || closesShekels !== a.closesCurrency) {
    throw conflict(
      `in shekels at the document's rate ${rate} the credit comes to ${ils.totalExVat} agorot before VAT and ${ils.totalIncVat} with VAT, and ${leftEx} and ${leftInc} are left: ` +
        `the credits of a ${currency} document must end in shekels where they end in ${currency} (its lines' shekel amounts round apart when split); a credit with no body takes exactly what is left in both`,
    );
  }
  return { ils, lines: a.lines.map((l, i) => ({ ...l, amountIls: lineIls[i] })) };
}
