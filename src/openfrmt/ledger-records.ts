/**
 * The ledger records of OPENFRMT v1.31 (reference §3–§4): B100 journal entry lines and B110
 * accounts. Written once the ledger exists; formatted and tested now.
 */
import { alpha, amount15, num, record } from './fields.ts';
import type { RecordOut } from './out.ts';
import { RECORD_LENGTHS, type RecordHead } from './records.ts';

export interface B100Input extends RecordHead {
  entryNo: number;
  lineNo: number;
  batchNo?: number | null;
  entryType?: string | null;
  reference?: string | null;
  referenceDocType?: number | null;
  reference2?: string | null;
  reference2DocType?: number | null;
  details?: string | null;
  date: string;
  valueDate: string;
  account: string;
  counterAccount?: string | null;
  /** 1 debit, 2 credit. */
  side: 1 | 2;
  currency?: string | null;
  /** Positive for both sides (the side is 1366). */
  amount: number;
  foreignAmount?: number | null;
  quantity?: number | null;
  match1?: string | null;
  match2?: string | null;
  branchId?: string | null;
  entryDate: string;
  operator?: string | null;
}

/** B100 into `o` (with its CR LF): `i` its fields, `head` its running number and VAT id. */
export function writeB100(o: RecordOut, i: Omit<B100Input, keyof RecordHead>, head: RecordHead): void {
  o.begin(RECORD_LENGTHS.B100 + 2);
  o.lit('B100');
  o.num(head.recordNo, 9, '1351');
  o.num(head.vatId, 9, '1352');
  o.num(i.entryNo, 10, '1353');
  o.num(i.lineNo, 5, '1354');
  o.num(i.batchNo, 8, '1355');
  o.alpha(i.entryType, 15); // 1356
  o.alpha(i.reference, 20); // 1357
  o.num(i.referenceDocType, 3, '1358');
  o.alpha(i.reference2, 20); // 1359
  o.num(i.reference2DocType, 3, '1360');
  o.alpha(i.details, 50); // 1361
  o.date8(i.date, '1362');
  o.date8(i.valueDate, '1363');
  o.alpha(i.account, 15); // 1364
  o.alpha(i.counterAccount, 15); // 1365
  o.num(i.side, 1, '1366');
  o.alpha(i.currency, 3); // 1367
  o.amount15(i.amount, '1368');
  o.amount15(i.foreignAmount ?? 0, '1369');
  o.amount12(i.quantity ?? 0, '1370');
  o.alpha(i.match1, 10); // 1371
  o.alpha(i.match2, 10); // 1372 (1373 cancelled)
  o.alpha(i.branchId, 7); // 1374
  o.date8(i.entryDate, '1375');
  o.alpha(i.operator, 9); // 1376
  o.spaces(25); // 1377
  o.end('B100', RECORD_LENGTHS.B100);
}

export interface B110Input extends RecordHead {
  accountKey: string;
  accountName: string;
  trialBalanceCode: string;
  trialBalanceName: string;
  street?: string | null;
  houseNo?: string | null;
  city?: string | null;
  zip?: string | null;
  country?: string | null;
  countryCode?: string | null;
  parentAccount?: string | null;
  /** Debit balance positive, credit balance negative. */
  openingBalance: number;
  totalDebit: number;
  totalCredit: number;
  classificationCode?: number | null;
  partyVatId?: string | null;
  branchId?: string | null;
  openingBalanceForeign?: number | null;
  foreignCurrency?: string | null;
}

export function b110(i: B110Input): string {
  return record('B110', RECORD_LENGTHS.B110, [
    'B110',
    num(i.recordNo, 9, '1401'),
    num(i.vatId, 9, '1402'),
    alpha(i.accountKey, 15), // 1403
    alpha(i.accountName, 50), // 1404
    alpha(i.trialBalanceCode, 15), // 1405
    alpha(i.trialBalanceName, 30), // 1406
    alpha(i.street, 50), // 1407
    alpha(i.houseNo, 10), // 1408
    alpha(i.city, 30), // 1409
    alpha(i.zip, 8), // 1410
    alpha(i.country, 30), // 1411
    alpha(i.countryCode, 2), // 1412
    alpha(i.parentAccount, 15), // 1413
    amount15(i.openingBalance, '1414'),
    amount15(i.totalDebit, '1415'),
    amount15(i.totalCredit, '1416'),
    num(i.classificationCode, 4, '1417'), // (1418 cancelled)
    num(i.partyVatId, 9, '1419'), // (1420 cancelled)
    alpha(i.branchId, 7), // 1421
    amount15(i.openingBalanceForeign ?? 0, '1422'),
    alpha(i.foreignCurrency, 3), // 1423
    alpha('', 16), // 1424
  ]);
}
