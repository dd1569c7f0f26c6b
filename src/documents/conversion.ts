/**
 * Converting an issued document into a draft of another type (issue 30; decisions.md "Document types
 * beyond the four"), pure: which conversions make sense, and the lines a conversion takes.
 *
 * A converted line names its source line (`source`). Each conversion stage of a source (doc-types.ts
 * `fulfils`: ordered, delivered, returned, invoiced) takes each source line's quantity at most once in
 * all, however many documents it is spread over; the quantities count when the target is issued
 * (conversion-issue.ts locks the source and checks again), so a draft reserves nothing.
 */
import { conflict, validation } from '../platform/errors.ts';
import { quantityOfTenThousandths, quantityTenThousandths } from '../platform/money.ts';
import { decimalsProblemOf } from '../openfrmt/index.ts';
import { DOC_TYPES, listOfCodes, type ConversionStage, type DocType } from './doc-types.ts';
import { lineAmount } from './totals.ts';
import { shareOf } from './partial-credit.ts';
import type { DocumentLine } from './snapshot-types.ts';

// Quantities are summed in ten-thousandths (platform/money.ts), so sums of quantities stay exact.

/** Why `from` cannot become `to` (409 `conflict`), or null when it can. */
export function conversionRefusal(from: DocType, to: DocType): string | null {
  const rule = DOC_TYPES[from];
  if (rule.convertsTo.includes(to)) return null;
  const into = rule.convertsTo.length > 0 ? `a ${from} converts into ${listOfCodes(rule.convertsTo, 'or')}` : `a ${from} converts into nothing`;
  return `a ${from} ${rule.noun} cannot be converted into a ${to} ${DOC_TYPES[to].noun}: ${into}`;
}

/** The stage a conversion into `to` takes quantities in (every target of a conversion has one: doc-types test). */
export function stageOf(to: DocType): ConversionStage {
  const stage = DOC_TYPES[to].fulfils;
  if (!stage) throw new Error(`doc-types: ${to} is a conversion target without a stage`);
  return stage;
}

export interface ConversionSource {
  id: string;
  docType: DocType;
  docNumber: number;
  lines: DocumentLine[];
  discountAmount: number;
}

/** The body's choice of lines (`index` from 0, as a partial credit's); absent: what is left of every line. */
export type ChosenLines = { index: number; quantity: number }[] | undefined;

/** The quantity (ten-thousandths) of each source line that `lines` take from `sourceId`. */
export function quantitiesFrom(sourceId: string, sourceLineCount: number, lines: readonly DocumentLine[]): number[] {
  const taken = new Array<number>(sourceLineCount).fill(0);
  for (const l of lines) if (l.source?.documentId === sourceId && l.source.index < sourceLineCount) taken[l.source.index] += quantityTenThousandths(l.quantity);
  return taken;
}

/** One converted line: `quantity` of the source's line `index`, with its share of the line discount after `before` taken. */
function convertedLine(source: ConversionSource, index: number, quantity: number, before: number): DocumentLine {
  const line = source.lines[index];
  const lineDiscount = shareOf(line.lineDiscount, before, quantityTenThousandths(quantity), quantityTenThousandths(line.quantity));
  const { amountIls: _frozenOnForeignOnly, source: _itsOwnSource, ...rest } = line;
  return {
    ...rest,
    quantity,
    lineDiscount,
    amount: lineAmount({ quantity, unitPriceExVat: line.unitPriceExVat, lineDiscount }),
    source: { documentId: source.id, docType: source.docType, docNumber: source.docNumber, index },
  };
}

/** A chosen line checked against what is left of it (400 for a line the source has not, 409 beyond what is left). */
function chosenLine(source: ConversionSource, taken: number[], choice: { index: number; quantity: number }, k: number): DocumentLine {
  const field = `body.lines[${k}]`;
  const { index, quantity } = choice;
  const line = source.lines[index];
  if (!line) throw validation(`${field}.index`, `the document has ${source.lines.length} lines: index 0 to ${source.lines.length - 1}`);
  const decimals = decimalsProblemOf(quantity, 'quantity');
  if (decimals) throw validation(`${field}.quantity`, decimals);
  const left = quantityTenThousandths(line.quantity) - taken[index];
  if (quantityTenThousandths(quantity) > left) {
    throw conflict(
      `line ${index} ("${line.description}"): ${quantityOfTenThousandths(Math.max(left, 0))} of its ${line.quantity} are left to convert, the request asks ${quantity}`,
    );
  }
  return convertedLine(source, index, quantity, taken[index]);
}

/**
 * The lines of a conversion of `source`, given the quantities of each of its lines already taken in the
 * target's stage (`taken`, ten-thousandths): the chosen ones, or what is left of every line. 409 when
 * the source has nothing left, or a choice is more than is left.
 */
export function convertedLines(a: { source: ConversionSource; taken: number[]; chosen: ChosenLines }): DocumentLine[] {
  const { source, taken, chosen } = a;
  if (chosen) {
    const seen = new Set<number>();
    chosen.forEach(({ index }, k) => {
      if (seen.has(index)) throw validation(`body.lines[${k}].index`, `line ${index} is named twice`);
      seen.add(index);
    });
    return chosen.map((c, k) => chosenLine(source, taken, c, k));
  }
  const lines = source.lines.flatMap((l, i) => {
    const left = quantityTenThousandths(l.quantity) - taken[i];
    return left > 0 ? [convertedLine(source, i, quantityOfTenThousandths(left), taken[i])] : [];
  });
  if (lines.length === 0) throw conflict(`${source.docType} #${source.docNumber} has nothing left to convert at this stage: every line was taken`);
  return lines;
}

/** The converted lines' share of the source's document discount (the whole discount for a whole conversion). */
export function discountShare(source: ConversionSource, lines: readonly DocumentLine[]): number {
  const of = source.lines.reduce((s, l) => s + l.amount, 0);
  return shareOf(
    source.discountAmount,
    0,
    lines.reduce((s, l) => s + l.amount, 0),
    of,
  );
}
