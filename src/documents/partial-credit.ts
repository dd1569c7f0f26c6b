/**
 * Partial credit notes (issue 29; decisions.md "Books: … credits"), pure. A 305 or 320 may be credited
 * by several 330s — chosen lines and quantities, or an amount before VAT — until they reach its total;
 * with neither, a credit takes the whole document (or, after partial credits, what they left).
 *
 * Each credit's figures follow "Money and tax" from its own lines, except that the rounding of the VAT
 * (the amount before VAT, for a document priced including VAT) is of the credits so far: a credit's VAT
 * is round(credited so far × rate) less what the earlier credits took. So the credits together never
 * pass the original's VAT and the last one closes it to the agora; a lone credit is rounded as any
 * document is (VAT Law §21 and regulation 24: a credit note corrects the VAT of the invoice it names).
 *
 * A line's discount and the document discount are shared out the same way, by the quantity credited.
 * A document in a foreign currency is credited in its currency at its own rate; its credits' shekel
 * figures are partial-credit-ils.ts's. A receipt is reversed whole (credit-note.ts).
 */
import { divideHalfAwayFromZero, quantityOfTenThousandths, quantityTenThousandths, roundHalfAwayFromZero } from '../platform/money.ts';
import { conflict, validation } from '../platform/errors.ts';
import { SHEKEL } from '../platform/currencies.ts';
import { decimalsProblemOf } from '../openfrmt/index.ts';
import { DEFAULT_UNIT } from './draft-input.ts';
import { lineAmount } from './totals.ts';
import type { Totals } from './snapshot.ts';
import type { CreditedPart, DocumentLine, DocumentSnapshot } from './snapshot-types.ts';
import { creditShekels, type IlsSoFar } from './partial-credit-ils.ts';
import type { PriceMode } from './lists.ts';

/** The body's choice: lines of the original with quantities, or an amount in agorot before VAT; neither is the whole. */
export interface CreditRequest {
  lines?: { index: number; quantity: number }[];
  amount?: number;
}

/** The credits written before this one, summed; quantities per line of the original in ten-thousandths (D110/1264). */
export interface CreditedSoFar {
  count: number;
  totalExVat: number;
  vatAmount: number;
  totalIncVat: number;
  discountAmount: number;
  /** Their shekel totals (a shekel document's are its totals). */
  ils: IlsSoFar;
  /** Σ the line amounts of credits by lines (the base of the document discount's share). */
  linesTotal: number;
  quantities: number[];
}

export function creditedSoFar(original: DocumentSnapshot, credits: DocumentSnapshot[]): CreditedSoFar {
  const soFar: CreditedSoFar = {
    count: 0,
    totalExVat: 0,
    vatAmount: 0,
    totalIncVat: 0,
    discountAmount: 0,
    ils: { totalExVat: 0, vatAmount: 0, totalIncVat: 0 },
    linesTotal: 0,
    quantities: original.lines.map(() => 0),
  };
  for (const c of credits) {
    soFar.count += 1;
    soFar.totalExVat += c.totals.totalExVat;
    soFar.vatAmount += c.totals.vatAmount;
    soFar.totalIncVat += c.totals.totalIncVat;
    soFar.discountAmount += c.totals.discountAmount;
    const ils = c.ils ?? c.totals;
    soFar.ils.totalExVat += ils.totalExVat;
    soFar.ils.vatAmount += ils.vatAmount;
    soFar.ils.totalIncVat += ils.totalIncVat;
    // A credit before issue 29 (no `credited`) was whole: every quantity.
    const part = c.credited ?? { kind: 'whole' };
    if (part.kind === 'whole') original.lines.forEach((l, i) => (soFar.quantities[i] += quantityTenThousandths(l.quantity)));
    if (part.kind === 'lines') {
      part.lines.forEach((l) => (soFar.quantities[l.index] += quantityTenThousandths(l.quantity)));
      soFar.linesTotal += c.lines.reduce((a, l) => a + l.amount, 0);
    }
  }
  return soFar;
}

/** `whole` × (before + part) / of, less whole × before / of, each rounded half away from zero: a share that adds up. */
export function shareOf(whole: number, before: number, part: number, of: number): number {
  if (whole === 0 || of === 0) return 0;
  const at = (x: number) => Number(divideHalfAwayFromZero(BigInt(whole) * BigInt(x), BigInt(of)));
  return at(before + part) - at(before);
}

/** The credit's totals from its lines less its discount (`own`), rounded with the credits before it (see the header). */
export function creditTotals(a: { priceMode: PriceMode; vatRateBp: number; before: CreditedSoFar; own: number; discountAmount: number }): Totals {
  const r = a.vatRateBp;
  if (a.priceMode === 'gross') {
    const exOf = (inc: number) => roundHalfAwayFromZero((inc * 10000) / (10000 + r));
    const totalExVat = exOf(a.before.totalIncVat + a.own) - exOf(a.before.totalIncVat);
    return { totalExVat, vatAmount: a.own - totalExVat, totalIncVat: a.own, discountAmount: a.discountAmount, withholdingAmount: 0 };
  }
  const vatOf = (ex: number) => roundHalfAwayFromZero((ex * r) / 10000);
  const vatAmount = vatOf(a.before.totalExVat + a.own) - vatOf(a.before.totalExVat);
  return { totalExVat: a.own, vatAmount, totalIncVat: a.own + vatAmount, discountAmount: a.discountAmount, withholdingAmount: 0 };
}

/** The chosen lines, each with its quantity and its share of the line discount. */
function chosenLines(original: DocumentSnapshot, soFar: CreditedSoFar, chosen: NonNullable<CreditRequest['lines']>): DocumentLine[] {
  const seen = new Set<number>();
  return chosen.map(({ index, quantity }, k) => {
    const field = `body.lines[${k}]`;
    const line = original.lines[index];
    if (!line) throw validation(`${field}.index`, `the document has ${original.lines.length} lines: index 0 to ${original.lines.length - 1}`);
    if (seen.has(index)) throw validation(`${field}.index`, `line ${index} is named twice`);
    seen.add(index);
    const decimals = decimalsProblemOf(quantity, 'quantity');
    if (decimals) throw validation(`${field}.quantity`, decimals);
    const of = quantityTenThousandths(line.quantity);
    if (of <= 0) throw validation(`${field}.index`, `line ${index} has no positive quantity to credit`);
    const left = of - soFar.quantities[index];
    if (quantityTenThousandths(quantity) > left) {
      throw conflict(
        `line ${index} ("${line.description}"): ${quantityOfTenThousandths(left)} of its ${line.quantity} are left to credit, the credit asks ${quantity}`,
      );
    }
    const lineDiscount = shareOf(line.lineDiscount, soFar.quantities[index], quantityTenThousandths(quantity), of);
    const { amountIls: _frozenOnForeignOnly, ...rest } = line;
    return { ...rest, quantity, lineDiscount, amount: lineAmount({ quantity, unitPriceExVat: line.unitPriceExVat, lineDiscount }) };
  });
}

/** One line of `price` (an amount credit, or what earlier credits left). */
function oneLine(description: string, price: number): DocumentLine {
  return { description, quantity: 1, unitPriceExVat: price, sku: null, unit: DEFAULT_UNIT, lineDiscount: 0, amount: price };
}

/** A credit note's content when it is not the plain mirror of its original. */
export interface PartialCredit {
  lines: DocumentLine[];
  totals: Totals;
  /** Its shekel figures: the totals of a shekel document; a foreign-currency one's at the original's rate (partial-credit-ils.ts). */
  ils: Totals;
  credited: CreditedPart;
  /** The credits, this one with them, reach the original's total: the original is credited in full. */
  full: boolean;
}

const sum = (lines: DocumentLine[]) => lines.reduce((a, l) => a + l.amount, 0);

/** The lines and the discount of the credit the request asks for (see the header). */
function creditContent(o: DocumentSnapshot, soFar: CreditedSoFar, request: CreditRequest) {
  const gross = o.priceMode === 'gross';
  if (request.lines) {
    const lines = chosenLines(o, soFar, request.lines);
    const discountAmount = shareOf(o.totals.discountAmount, soFar.linesTotal, sum(lines), sum(o.lines));
    return { lines, discountAmount, credited: { kind: 'lines', lines: request.lines } as CreditedPart };
  }
  if (request.amount !== undefined) {
    // An amount before VAT; a document priced including VAT credits a line of the amount with its VAT.
    const price = gross ? request.amount + roundHalfAwayFromZero((request.amount * o.vatRateBp) / 10000) : request.amount;
    return { lines: [oneLine('זיכוי חלקי', price)], discountAmount: 0, credited: { kind: 'amount', amount: request.amount } as CreditedPart };
  }
  const left = gross ? o.totals.totalIncVat - soFar.totalIncVat : o.totals.totalExVat - soFar.totalExVat;
  return { lines: [oneLine('יתרת זיכוי', left)], discountAmount: 0, credited: { kind: 'remainder' } as CreditedPart };
}

/**
 * The credit the request asks for, or null for the plain mirror (no lines, no amount, nothing credited
 * before: credit-note.ts reversalOf). 400 `validation` for what the document cannot take, 409 `conflict`
 * for a credit beyond what earlier credits left.
 */
export function partialCreditOf(a: { original: DocumentSnapshot; soFar: CreditedSoFar; request: CreditRequest }): PartialCredit | null {
  const { original: o, soFar, request } = a;
  const field = request.lines ? 'body.lines' : request.amount !== undefined ? 'body.amount' : 'body';
  if (request.lines && request.amount !== undefined) throw validation('body', 'give lines or amount, not both (neither credits the whole document)');
  if (field === 'body' && soFar.count === 0) return null;
  const { lines, discountAmount, credited } = creditContent(o, soFar, request);
  const totals = creditTotals({ priceMode: o.priceMode, vatRateBp: o.vatRateBp, before: soFar, own: sum(lines) - discountAmount, discountAmount });
  if (totals.totalIncVat <= 0 || totals.totalExVat < 0) throw validation(field, `the credit comes to ${totals.totalIncVat} agorot: nothing to credit`);
  const leftEx = o.totals.totalExVat - soFar.totalExVat;
  const leftInc = o.totals.totalIncVat - soFar.totalIncVat;
  if (totals.totalExVat > leftEx || totals.totalIncVat > leftInc) {
    throw conflict(
      `the credit (${totals.totalExVat} agorot before VAT, ${totals.totalIncVat} with VAT) is more than the ${soFar.count} earlier credit notes left of the document's total: ${leftEx} before VAT, ${leftInc} with VAT`,
    );
  }
  const full = totals.totalExVat === leftEx && totals.totalIncVat === leftInc;
  if (!o.currency || o.currency === SHEKEL || !o.exchangeRate || !o.ils) return { lines, totals, ils: totals, credited, full };
  // A foreign-currency document: the shekel figures at the original's rate, kept in step with the currency's.
  const shekels = creditShekels({ original: o, before: soFar, lines, totals, credited, closesCurrency: full });
  return { lines: shekels.lines, totals, ils: shekels.ils, credited, full };
}
