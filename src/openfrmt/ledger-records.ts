/**
 * The ledger records of OPENFRMT v1.31 (reference §3–§4): B100 journal entry lines and B110
 * accounts. Written once the ledger exists; formatted and tested now.
 */
import { alpha, amount12, amount15, date8, num, record } from './fields.ts';
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

export function b100(i: B100Input): string {
  return record('B100', RECORD_LENGTHS.B100, [
    'B100',
    num(i.recordNo, 9, '1351'),
    num(i.vatId, 9, '1352'),
    num(i.entryNo, 10, '1353'),
    num(i.lineNo, 5, '1354'),
    num(i.batchNo, 8, '1355'),
    alpha(i.entryType, 15), // 1356
    alpha(i.reference, 20), // 1357
    num(i.referenceDocType, 3, '1358'),
    alpha(i.reference2, 20), // 1359
    num(i.reference2DocType, 3, '1360'),
    alpha(i.details, 50), // 1361
    date8(i.date, '1362'),
    date8(i.valueDate, '1363'),
    alpha(i.account, 15), // 1364
    alpha(i.counterAccount, 15), // 1365
    num(i.side, 1, '1366'),
    alpha(i.currency, 3), // 1367
    amount15(i.amount, '1368'),
    amount15(i.foreignAmount ?? 0, '1369'),
    amount12(i.quantity ?? 0, '1370'),
    alpha(i.match1, 10), // 1371
    alpha(i.match2, 10), // 1372 (1373 cancelled)
    alpha(i.branchId, 7), // 1374
    date8(i.entryDate, '1375'),
    alpha(i.operator, 9), // 1376
    alpha('', 25), // 1377
  ]);
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
