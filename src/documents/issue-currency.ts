/**
 * A document's currency at issue (issue 21; docs/currency.md): the rate is taken — the draft's own,
 * else the business's agreed rate or the Bank of Israel's for the document date — and the shekel
 * figures are computed once and frozen with it.
 */
import type { Executor } from '../platform/db/engine.ts';
import { SHEKEL } from '../platform/currencies.ts';
import type { Services } from '../platform/http/services.ts';
import { exchangeRateDeps, rateForDocument } from '../exchange-rates/index.ts';
import { carrier, maxAgorot, type CarriedField } from '../openfrmt/index.ts';
import { paymentInOwnCurrency, shekelFigures, toAgorot, toHundredths } from './currency.ts';
import type { DocType, DocumentRow, Totals } from './snapshot.ts';
import type { DocumentCurrency, DocumentLine, DocumentPayment, PriceMode } from './snapshot-types.ts';

/** The rate of a draft at issue; null for a shekel document. May ask the Bank of Israel (cached daily). */
export async function rateAtIssue(
  s: Services,
  ex: Executor,
  businessId: string,
  d: Pick<DocumentRow, 'currency' | 'exchangeRate' | 'documentDate'>,
): Promise<DocumentCurrency> {
  if (d.currency === SHEKEL) return { currency: SHEKEL, exchangeRate: null, exchangeRateDate: null, exchangeRateSource: null };
  if (d.exchangeRate !== null) {
    return { currency: d.currency, exchangeRate: d.exchangeRate, exchangeRateDate: d.documentDate, exchangeRateSource: 'request' };
  }
  const r = await rateForDocument(exchangeRateDeps(s), ex, { businessId, currency: d.currency, documentDate: d.documentDate });
  return { currency: d.currency, exchangeRate: r.rate, exchangeRateDate: r.date, exchangeRateSource: r.source };
}

export interface FrozenCurrency extends DocumentCurrency {
  ils: Totals;
  /** The lines; a foreign-currency document's each with its shekel amount. */
  lines: DocumentLine[];
  /** The payments, each in a foreign payment currency with its amount in that currency; a foreign-currency document's each with its shekel amount. */
  payments: DocumentPayment[];
}

/**
 * The snapshot's currency fields (pure): the shekel figures computed once (currency.ts) and stored,
 * the totals and each line's and payment's amount, so no reader computes them again.
 */
export function frozenCurrency(
  rate: DocumentCurrency,
  d: { docType: DocType; priceMode: PriceMode; lines: DocumentLine[]; payments: DocumentPayment[]; totals: Totals },
): FrozenCurrency {
  const { ils, lineAmounts, paymentAmounts } = shekelFigures(d, rate.currency, rate.exchangeRate);
  const inShekels = rate.currency === SHEKEL;
  const lines = inShekels ? d.lines : d.lines.map((l, i) => ({ ...l, amountIls: lineAmounts[i] }));
  const payments = d.payments.map((p, i) => {
    const own = p.currency ?? rate.currency;
    const withIls = inShekels ? p : { ...p, amountIls: paymentAmounts[i] };
    if (own === rate.currency) return withIls;
    const payRate = own === SHEKEL ? null : (p.exchangeRate ?? null);
    return {
      ...withIls,
      originalAmount: paymentInOwnCurrency(p.amount, { docCurrency: rate.currency, docRate: rate.exchangeRate, payCurrency: own, payRate }),
    };
  });
  return { ...rate, ils, lines, payments };
}

/**
 * The shekel figures must fit the OPENFRMT fields that carry them, as the document's own figures do
 * (a large amount at a rate above 1 can outgrow its field), and the foreign total C100/1217, which
 * carries hundredths of the unit (a yen total × 100). Null when they fit.
 */
export function shekelFiguresProblem(money: FrozenCurrency, totals: Totals): { field: string; problem: string } | null {
  if (money.currency === SHEKEL) return null;
  const rate = money.exchangeRate!;
  const lineChecks = money.lines.flatMap((l, i): [string, number, CarriedField][] => [
    [`lines[${i}].unitPriceExVat`, toAgorot(l.unitPriceExVat, money.currency, rate), 'unitPrice'],
    [`the amount of lines[${i}]`, l.amountIls ?? 0, 'lineTotal'],
  ]);
  const checks: [string, number, CarriedField][] = [
    ...lineChecks,
    ['the sum of the lines', money.lines.reduce((a, l) => a + (l.amountIls ?? 0), 0), 'amountBeforeDiscount'],
    ['totalExVat', money.ils.totalExVat, 'totalExVat'],
    ['vatAmount', money.ils.vatAmount, 'vatAmount'],
    ['totalIncVat', money.ils.totalIncVat, 'totalIncVat'],
    ['withholdingAmount', money.ils.withholdingAmount, 'withholding'],
    ['totalIncVat in hundredths of the currency', toHundredths(totals.totalIncVat, money.currency), 'totalIncVat'],
  ];
  for (const [figure, value, carried] of checks) {
    const max = maxAgorot(carried);
    if (Math.abs(value) > max) {
      return {
        field: 'body.exchangeRate',
        problem: `${figure} comes to ${value} in shekels at ${money.exchangeRate}, more than the ${max} ${carrier(carried)} carries`,
      };
    }
  }
  return null;
}
