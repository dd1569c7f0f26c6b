/**
 * One writer per record type of OPENFRMT v1.31 (reference §3–§4). Each takes a typed input and
 * returns the exact fixed-width record WITHOUT its CRLF. Amounts are integers of the smallest unit
 * (agorot); cancelled fields (X(0)) take no bytes and are simply absent here.
 */
import { alpha, date8, FieldError, num, record, time4 } from './fields.ts';
import type { RecordOut } from './out.ts';

export const SYSTEM_CONSTANT = '&OF1.31&';

export const RECORD_LENGTHS = {
  A000: 466,
  SUMMARY: 19,
  A100: 95,
  B100: 317,
  B110: 376,
  C100: 444,
  D110: 339,
  D120: 222,
  M100: 298,
  Z900: 110,
} as const;

/** The data record types INI.TXT summarises, in the order of spec §2.5. */
export const SUMMARISED_TYPES = ['B100', 'B110', 'C100', 'D110', 'D120', 'M100'] as const;
export type SummarisedType = (typeof SUMMARISED_TYPES)[number];

/** Fields every BKMVDATA record starts with. */
export interface RecordHead {
  recordNo: number;
  vatId: string;
}

export interface A000Input {
  totalRecords: number;
  vatId: string;
  primaryId: string;
  softwareRegNo: string;
  softwareName: string;
  softwareVersion: string;
  makerVatId: string;
  makerName: string;
  softwareType: 1 | 2;
  savePath: string;
  bookkeepingType: 0 | 1 | 2;
  balanceLevel: 0 | 1 | 2;
  companyRegNo?: string | null;
  withholdingFileNo?: string | null;
  businessName: string;
  street?: string | null;
  houseNo?: string | null;
  city?: string | null;
  zip?: string | null;
  taxYear?: number | null;
  rangeFrom?: string | null;
  rangeTo?: string | null;
  processDate: string;
  processTime: string;
  languageCode: 0 | 1 | 2;
  charset: 1 | 2;
  compressor: string;
  currency: string;
  hasBranches: 0 | 1;
}

export function a000(i: A000Input): string {
  // 1009 is mandatory (ח): a missing maker VAT number must never be written as zeros.
  if (!i.makerVatId || /^0+$/.test(i.makerVatId)) throw new FieldError("1009: the software maker's VAT number is missing (OPENFRMT_MAKER_TAX_ID)");
  return record('A000', RECORD_LENGTHS.A000, [
    'A000', // 1000
    alpha('', 5), // 1001 reserved
    num(i.totalRecords, 15, '1002'),
    num(i.vatId, 9, '1003'),
    num(i.primaryId, 15, '1004'),
    alpha(SYSTEM_CONSTANT, 8), // 1005
    num(i.softwareRegNo, 8, '1006'),
    alpha(i.softwareName, 20), // 1007
    alpha(i.softwareVersion, 20), // 1008
    num(i.makerVatId, 9, '1009'),
    alpha(i.makerName, 20), // 1010
    num(i.softwareType, 1, '1011'),
    alpha(i.savePath, 50), // 1012
    num(i.bookkeepingType, 1, '1013'),
    num(i.balanceLevel, 1, '1014'),
    num(i.companyRegNo, 9, '1015'),
    num(i.withholdingFileNo, 9, '1016'),
    alpha('', 10), // 1017 reserved
    alpha(i.businessName, 50), // 1018
    alpha(i.street, 50), // 1019
    alpha(i.houseNo, 10), // 1020
    alpha(i.city, 30), // 1021
    alpha(i.zip, 8), // 1022
    num(i.taxYear, 4, '1023'),
    date8(i.rangeFrom, '1024'),
    date8(i.rangeTo, '1025'),
    date8(i.processDate, '1026'),
    time4(i.processTime, '1027'),
    num(i.languageCode, 1, '1028'),
    num(i.charset, 1, '1029'),
    alpha(i.compressor, 20), // 1030 (1031 cancelled)
    alpha(i.currency || 'ILS', 3), // 1032 (1033 cancelled)
    num(i.hasBranches, 1, '1034'),
    alpha('', 46), // 1035 reserved
  ]);
}

/** INI.TXT summary line: the code of a record type and how many of it BKMVDATA holds. */
export function summaryLine(code: SummarisedType, count: number): string {
  return record('summary', RECORD_LENGTHS.SUMMARY, [alpha(code, 4), num(count, 15, '1051')]);
}

export interface A100Input extends RecordHead {
  primaryId: string;
}

export function a100(i: A100Input): string {
  return record('A100', RECORD_LENGTHS.A100, [
    'A100',
    num(i.recordNo, 9, '1101'),
    num(i.vatId, 9, '1102'),
    num(i.primaryId, 15, '1103'),
    alpha(SYSTEM_CONSTANT, 8), // 1104
    alpha('', 50), // 1105
  ]);
}

export interface Z900Input extends RecordHead {
  primaryId: string;
  totalRecords: number;
}

export function z900(i: Z900Input): string {
  return record('Z900', RECORD_LENGTHS.Z900, [
    'Z900',
    num(i.recordNo, 9, '1151'),
    num(i.vatId, 9, '1152'),
    num(i.primaryId, 15, '1153'),
    alpha(SYSTEM_CONSTANT, 8), // 1154
    num(i.totalRecords, 15, '1155'),
    alpha('', 50), // 1156
  ]);
}

export interface C100Input extends RecordHead {
  docType: number;
  docNumber: string;
  issueDate: string;
  issueTime: string | null;
  partyName: string | null;
  partyStreet?: string | null;
  partyHouseNo?: string | null;
  partyCity?: string | null;
  partyZip?: string | null;
  partyCountry?: string | null;
  partyCountryCode?: string | null;
  partyPhone?: string | null;
  partyVatId?: string | null;
  valueDate?: string | null;
  /** Export invoices only; null leaves 1217 blank. */
  foreignTotal?: number | null;
  foreignCurrency?: string | null;
  amountBeforeDiscount: number;
  /** The document discount as a magnitude (agorot); written with the sign opposite to the document's (see documentSign). */
  discount: number;
  amountAfterDiscountExVat: number;
  vatAmount: number;
  totalIncVat: number;
  /** Withholding as a magnitude (agorot); written with the document's own sign (see documentSign). */
  withholding: number;
  partyKey: string | null;
  matchingField?: string | null;
  cancelled: boolean;
  docDate: string;
  branchId?: string | null;
  operator?: string | null;
  linkNo: number;
}

/**
 * The sign of a document for the fields whose sign is relative to it (spec §2.4(יב), Appendix 1 note,
 * clarifications 1, 4, 5): amounts are positive in a standard document (a 330 too: the type carries the
 * meaning); a negative document (a reversing receipt) has the opposite effect. Taken from 1223, or 1219
 * when 1223 is 0.
 */
export function documentSign(i: Pick<C100Input, 'totalIncVat' | 'amountBeforeDiscount'>): 1 | -1 {
  const v = i.totalIncVat !== 0 ? i.totalIncVat : i.amountBeforeDiscount;
  return v < 0 ? -1 : 1;
}

/**
 * C100 1219–1224 as written: the amounts as given; the document discount 1220 reduces the document,
 * so it takes the sign opposite to the document's (negative in a standard document, clarification 5);
 * withholding 1224 does not reduce it, so it takes the document's own sign (positive in a standard
 * document, clarification 4; negative in a negative receipt, whose whole effect is reversed).
 */
export function c100Amounts(
  i: Pick<C100Input, 'amountBeforeDiscount' | 'discount' | 'amountAfterDiscountExVat' | 'vatAmount' | 'totalIncVat' | 'withholding'>,
): number[] {
  const sign = documentSign(i);
  return [i.amountBeforeDiscount, -sign * Math.abs(i.discount), i.amountAfterDiscountExVat, i.vatAmount, i.totalIncVat, sign * Math.abs(i.withholding)];
}

/** The fields a data record of a document shares: its place in the file and its document (lineNo for D110/D120). */
export interface DocumentRef extends RecordHead {
  docType: number;
  docNumber: string;
  docDate: string;
  linkNo: number;
  lineNo: number;
}
export type RefFields = keyof DocumentRef;

/** C100 into `o` (with its CR LF): `i` its own fields, `r` where it stands and which document it heads. */
export function writeC100(o: RecordOut, i: Omit<C100Input, RefFields>, r: Omit<DocumentRef, 'lineNo'>): void {
  const [before, discount, after, vat, total, withholding] = c100Amounts(i);
  o.begin(RECORD_LENGTHS.C100 + 2);
  o.lit('C100');
  o.num(r.recordNo, 9, '1201');
  o.num(r.vatId, 9, '1202');
  o.num(r.docType, 3, '1203');
  o.alpha(r.docNumber, 20); // 1204
  o.date8(i.issueDate, '1205');
  o.time4(i.issueTime, '1206');
  o.alpha(i.partyName, 50); // 1207
  o.alpha(i.partyStreet, 50); // 1208
  o.alpha(i.partyHouseNo, 10); // 1209
  o.alpha(i.partyCity, 30); // 1210
  o.alpha(i.partyZip, 8); // 1211
  o.alpha(i.partyCountry, 30); // 1212
  o.alpha(i.partyCountryCode, 2); // 1213
  o.alpha(i.partyPhone, 15); // 1214
  o.num(i.partyVatId, 9, '1215');
  o.date8(i.valueDate, '1216');
  if (i.foreignTotal === null || i.foreignTotal === undefined) o.spaces(15);
  else o.amount15(i.foreignTotal, '1217');
  o.alpha(i.foreignCurrency, 3); // 1218
  o.amount15(before, '1219');
  o.amount15(discount, '1220');
  o.amount15(after, '1221');
  o.amount15(vat, '1222');
  o.amount15(total, '1223');
  o.amount12(withholding, '1224');
  o.alpha(i.partyKey, 15); // 1225
  o.alpha(i.matchingField, 10); // 1226 (1227 cancelled)
  o.lit(i.cancelled ? '1' : ' '); // 1228 (1229 cancelled)
  o.date8(r.docDate, '1230');
  o.alpha(i.branchId, 7); // 1231 (1232 cancelled)
  o.alpha(i.operator, 9); // 1233
  o.num(r.linkNo, 7, '1234');
  o.spaces(13); // 1235
  o.end('C100', RECORD_LENGTHS.C100);
}

export const CRLF = '\r\n';
