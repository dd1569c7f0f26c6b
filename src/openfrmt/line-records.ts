/**
 * The detail records of a document (OPENFRMT v1.31 reference §4): its lines (D110) and its payments
 * (D120), written straight into a RecordOut (`writeD110`, `writeD120`).
 */
import type { RecordOut } from './out.ts';
import { RECORD_LENGTHS, type DocumentRef, type RecordHead, type RefFields } from './records.ts';

/** D110/1266 as written: a line discount reduces the line, so its sign is opposite to the line total's (clarification 5). */
export function lineDiscountAmount(i: Pick<D110Input, 'lineDiscount' | 'lineTotal'>): number {
  return (i.lineTotal < 0 ? 1 : -1) * Math.abs(i.lineDiscount);
}

export interface D110Input extends RecordHead {
  docType: number;
  docNumber: string;
  lineNo: number;
  baseDocType?: number | null;
  baseDocNumber?: string | null;
  /** 1 service, 2 goods, 3 both; null leaves it 0. */
  transactionType?: 1 | 2 | 3 | null;
  sku?: string | null;
  description: string;
  manufacturer?: string | null;
  serialNo?: string | null;
  unit: string;
  quantity: number;
  unitPriceExVat: number;
  /** A magnitude (agorot); written negative on a positive line (clarification 5), see lineDiscountAmount. */
  lineDiscount: number;
  lineTotal: number;
  /** Basis points: 1800 = 18% (`9(2)v99`). */
  vatRateBp: number;
  branchId?: string | null;
  docDate: string;
  linkNo: number;
  baseBranchId?: string | null;
}

/** D110 into `o` (with its CR LF). */
export function writeD110(o: RecordOut, i: Omit<D110Input, RefFields>, r: DocumentRef): void {
  o.begin(RECORD_LENGTHS.D110 + 2);
  o.lit('D110');
  o.num(r.recordNo, 9, '1251');
  o.num(r.vatId, 9, '1252');
  o.num(r.docType, 3, '1253');
  o.alpha(r.docNumber, 20); // 1254
  o.num(r.lineNo, 4, '1255');
  o.num(i.baseDocType, 3, '1256');
  o.alpha(i.baseDocNumber, 20); // 1257
  o.num(i.transactionType, 1, '1258');
  o.alpha(i.sku, 20); // 1259
  o.alpha(i.description, 30); // 1260
  o.alpha(i.manufacturer, 50); // 1261
  o.alpha(i.serialNo, 30); // 1262
  o.alpha(i.unit, 20); // 1263
  o.quantity17(i.quantity, '1264');
  o.amount15(i.unitPriceExVat, '1265');
  o.amount15(lineDiscountAmount(i), '1266');
  o.amount15(i.lineTotal, '1267');
  o.unsignedScaled(i.vatRateBp, 2, 2, '1268'); // (1269 cancelled)
  o.alpha(i.branchId, 7); // 1270 (1271 cancelled)
  o.date8(r.docDate, '1272');
  o.num(r.linkNo, 7, '1273');
  o.alpha(i.baseBranchId, 7); // 1274
  o.spaces(21); // 1275
  o.end('D110', RECORD_LENGTHS.D110);
}

export interface D120Input extends RecordHead {
  docType: number;
  docNumber: string;
  lineNo: number;
  /** 1..9; the service's extension codes 91–93 must already be folded to 9 (see paymentMethodCode). */
  method: number;
  bankNo?: string | null;
  bankBranch?: string | null;
  bankAccount?: string | null;
  chequeNo?: string | null;
  dueDate?: string | null;
  amount: number;
  acquirer?: number | null;
  cardName?: string | null;
  dealType?: number | null;
  branchId?: string | null;
  docDate: string;
  linkNo: number;
}

/** The spec knows 1..9; the service's app codes 91 (bit), 92 (paybox), 93 (other app) are "other" (9). */
export function paymentMethodCode(code: number): number {
  if (code >= 91 && code <= 93) return 9;
  if (!Number.isInteger(code) || code < 1 || code > 9) throw new Error(`payment method ${code} has no OPENFRMT code`);
  return code;
}

/** Bank fields are numeric `9(n)`: keep the digits of what the payer wrote (e.g. "12-345" → "12345"). */
function digitsOf(v: string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const d = String(v).replace(/\D/g, '');
  return d === '' ? null : d;
}

/** D120 into `o` (with its CR LF). */
export function writeD120(o: RecordOut, i: Omit<D120Input, RefFields>, r: DocumentRef): void {
  o.begin(RECORD_LENGTHS.D120 + 2);
  o.lit('D120');
  o.num(r.recordNo, 9, '1301');
  o.num(r.vatId, 9, '1302');
  o.num(r.docType, 3, '1303');
  o.alpha(r.docNumber, 20); // 1304
  o.num(r.lineNo, 4, '1305');
  o.num(paymentMethodCode(i.method), 1, '1306');
  o.num(digitsOf(i.bankNo), 10, '1307');
  o.num(digitsOf(i.bankBranch), 10, '1308');
  o.num(digitsOf(i.bankAccount), 15, '1309');
  o.num(digitsOf(i.chequeNo), 10, '1310');
  o.date8(i.dueDate, '1311');
  o.amount15(i.amount, '1312');
  o.num(i.acquirer, 1, '1313');
  o.alpha(i.cardName, 20); // 1314
  o.num(i.dealType, 1, '1315'); // (1316–1319 cancelled)
  o.alpha(i.branchId, 7); // 1320 (1321 cancelled)
  o.date8(r.docDate, '1322');
  o.num(r.linkNo, 7, '1323');
  o.spaces(60); // 1324
  o.end('D120', RECORD_LENGTHS.D120);
}
