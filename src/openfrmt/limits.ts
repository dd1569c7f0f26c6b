/**
 * What the API may accept, derived from the OPENFRMT record layouts (layouts.ts) in one place, so
 * that every value taken at the door can be exported: a number that does not fit its picture would
 * make the export refuse the run; text longer than its field would be cut. Pure, no I/O.
 *
 * layouts.ts gives each field's columns and kind; the implied decimals of the pictures
 * (`X9(12)v99`, `X9(12)v9999`, `9(2)v99`, reference §4) are the one thing it does not carry, so
 * they are listed here.
 */
import { foldToRepertoire } from './charset.ts';
import { LAYOUTS, type Kind } from './layouts.ts';

export type RecordCode = keyof typeof LAYOUTS & string;

/** Implied decimals of the numeric fields (reference §4). Fields not listed have none. */
const DECIMALS: Readonly<Record<number, number>> = {
  1217: 2,
  1219: 2,
  1220: 2,
  1221: 2,
  1222: 2,
  1223: 2,
  1224: 2, // C100 amounts X9(12)v99, 1224 X9(9)v99
  1264: 4,
  1265: 2,
  1266: 2,
  1267: 2,
  1268: 2, // D110 quantity X9(12)v9999, amounts X9(12)v99, VAT rate 9(2)v99
  1312: 2, // D120 amount X9(12)v99
  1368: 2,
  1369: 2,
  1370: 2, // B100 amounts, quantity X9(9)v99
  1414: 2,
  1415: 2,
  1416: 2,
  1422: 2, // B110 balances
  1460: 2,
  1461: 2,
  1462: 2,
  1463: 2,
  1464: 2, // M100 quantities X9(9)v99, costs 9(8)v99
};

/**
 * 15 significant decimal digits survive a round trip through a JSON number (an IEEE double,
 * DBL_DIG = 15): a wider picture is capped here so the value the API holds is the value it writes.
 */
const EXACT_DIGITS = 15;

export interface FieldPicture {
  record: RecordCode;
  id: number;
  kind: Kind;
  /** Characters of the field, sign included. */
  width: number;
  /** Digits of a numeric field (width without the sign). */
  digits: number;
  decimals: number;
}

export function pictureOf(record: RecordCode, id: number): FieldPicture {
  const layout = LAYOUTS[record];
  const def = layout?.fields.find((f) => f[0] === id);
  if (!def) throw new Error(`OPENFRMT ${record} has no field ${id}`);
  const [, from, to, kind] = def;
  const width = to - from + 1;
  return { record, id, kind, width, digits: kind === 'S' ? width - 1 : width, decimals: DECIMALS[id] ?? 0 };
}

/** The largest magnitude of a numeric field as an integer of its smallest unit (agorot for v99). */
export function maxScaledOf(record: RecordCode, id: number): number {
  const p = pictureOf(record, id);
  if (p.kind !== 'S' && p.kind !== 'U' && p.kind !== 'N') throw new Error(`OPENFRMT ${record}/${id} is not numeric`);
  return Math.min(10 ** Math.min(p.digits, EXACT_DIGITS) - 1, Number.MAX_SAFE_INTEGER);
}

/** The largest amount in agorot a `…v99` amount field carries (`X9(12)v99` → 99,999,999,999,999). */
export function maxAgorotOf(record: RecordCode, id: number): number {
  const p = pictureOf(record, id);
  if (p.decimals !== 2) throw new Error(`OPENFRMT ${record}/${id} is not an amount in agorot`);
  return maxScaledOf(record, id);
}

/** The largest value of a field with decimals, as a plain number (`X9(12)v9999`, capped to 15 digits → 99,999,999,999.9999). */
export function maxValueOf(record: RecordCode, id: number): number {
  const p = pictureOf(record, id);
  return maxScaledOf(record, id) / 10 ** p.decimals;
}

/** The decimals a field carries (1264 → 4). */
export const decimalsOf = (record: RecordCode, id: number): number => pictureOf(record, id).decimals;

/** Characters of an alphanumeric field `X(n)`. */
export function maxLengthOf(record: RecordCode, id: number): number {
  const p = pictureOf(record, id);
  if (p.kind !== 'X') throw new Error(`OPENFRMT ${record}/${id} is not text`);
  return p.width;
}

/** Digits of a numeric field `9(n)` (a bank account 1309 → 15). */
export function maxDigitsOf(record: RecordCode, id: number): number {
  const p = pictureOf(record, id);
  if (p.kind !== 'N') throw new Error(`OPENFRMT ${record}/${id} is not a numeric code`);
  return p.digits;
}

/**
 * Null when `text` fits the `X(n)` field as it will be written (folded to ISO-8859-8 first: ₪
 * becomes ש"ח, so a text can grow), else the problem.
 */
export function textProblem(text: string, record: RecordCode, id: number): string | null {
  const max = maxLengthOf(record, id);
  const folded = foldToRepertoire(text);
  if (folded.length <= max) return null;
  return `is ${folded.length} characters as written to the tax authority's file (OPENFRMT ${record}/${id} holds ${max})`;
}

/** Null when the digits of `text` (what a numeric field keeps of it) fit the `9(n)` field, else the problem. */
export function digitsProblem(text: string, record: RecordCode, id: number): string | null {
  const max = maxDigitsOf(record, id);
  const n = text.replace(/\D/g, '').length;
  return n <= max ? null : `has ${n} digits; OPENFRMT ${record}/${id} holds ${max}`;
}

/**
 * Null when `value` has at most the field's decimals (written exactly, never rounded), else the
 * problem. Decided on the number's shortest decimal form, which for ≤ 15 significant digits is
 * the decimal the client sent.
 */
export function decimalsProblem(value: number, record: RecordCode, id: number): string | null {
  const d = decimalsOf(record, id);
  const s = String(value);
  const frac = /e/i.test(s) ? Infinity : (s.split('.')[1] ?? '').length;
  return frac <= d ? null : `has more than ${d} decimals (OPENFRMT ${record}/${id} carries ${d})`;
}

/**
 * The fields of the documents and expenses the API takes, each with the OPENFRMT field that
 * carries it. Request schemas and draft checks read their limits from here.
 */
export const CARRIED_BY = {
  // D110 document lines
  lineDescription: ['D110', 1260],
  lineSku: ['D110', 1259],
  lineUnit: ['D110', 1263],
  quantity: ['D110', 1264],
  unitPrice: ['D110', 1265],
  lineDiscount: ['D110', 1266],
  lineTotal: ['D110', 1267],
  vatRate: ['D110', 1268],
  // A000 (INI.TXT): the business itself
  businessName: ['A000', 1018],
  businessStreet: ['A000', 1019],
  // C100 document header
  partyName: ['C100', 1207],
  partyAddress: ['C100', 1208],
  partyPhone: ['C100', 1214],
  amountBeforeDiscount: ['C100', 1219],
  discount: ['C100', 1220],
  totalExVat: ['C100', 1221],
  vatAmount: ['C100', 1222],
  totalIncVat: ['C100', 1223],
  withholding: ['C100', 1224],
  // D120 payments
  paymentAmount: ['D120', 1312],
  bankNo: ['D120', 1307],
  bankBranch: ['D120', 1308],
  bankAccount: ['D120', 1309],
  chequeNo: ['D120', 1310],
  cardName: ['D120', 1314],
  // Expenses: journal lines (B100) and the supplier's account (B110) of the ledger
  expenseAmount: ['B100', 1368],
  expenseDocNumber: ['B100', 1357],
  supplierName: ['B110', 1404],
} as const satisfies Record<string, readonly [RecordCode, number]>;

export type CarriedField = keyof typeof CARRIED_BY;

const of = (f: CarriedField): readonly [RecordCode, number] => CARRIED_BY[f];
/** `maxAgorotOf` by API field name. */
export const maxAgorot = (f: CarriedField): number => maxAgorotOf(of(f)[0], of(f)[1]);
export const maxLength = (f: CarriedField): number => maxLengthOf(of(f)[0], of(f)[1]);
export const maxDigits = (f: CarriedField): number => maxDigitsOf(of(f)[0], of(f)[1]);
export const maxValue = (f: CarriedField): number => maxValueOf(of(f)[0], of(f)[1]);
export const maxScaled = (f: CarriedField): number => maxScaledOf(of(f)[0], of(f)[1]);
export const carrier = (f: CarriedField): string => `OPENFRMT ${of(f)[0]}/${of(f)[1]}`;
export const textProblemOf = (text: string, f: CarriedField): string | null => textProblem(text, of(f)[0], of(f)[1]);
export const digitsProblemOf = (text: string, f: CarriedField): string | null => digitsProblem(text, of(f)[0], of(f)[1]);
export const decimalsProblemOf = (value: number, f: CarriedField): string | null => decimalsProblem(value, of(f)[0], of(f)[1]);
