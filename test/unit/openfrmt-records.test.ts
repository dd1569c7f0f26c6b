import { describe, expect, it } from 'vitest';
import { a000, a100, summaryLine, writeC100, z900, type C100Input } from '../../src/openfrmt/records.ts';
import { paymentMethodCode, writeD110, writeD120 } from '../../src/openfrmt/line-records.ts';
import { b110, writeB100 } from '../../src/openfrmt/ledger-records.ts';
import { m100, written } from '../helpers/openfrmt-records.ts';

/** Columns from–to, 1-based inclusive, as the reference tables print them. */
const col = (rec: string, from: number, to: number) => rec.slice(from - 1, to);
const sp = (n: number) => ' '.repeat(n);

const VAT = '123456782';
const PID = '482915736401827';

describe('A100 / Z900 / INI summary (reference §11 worked examples)', () => {
  it('A100 is byte-identical to the worked example', () => {
    expect(a100({ recordNo: 1, vatId: VAT, primaryId: PID })).toBe(`A100000000001123456782482915736401827&OF1.31&${sp(50)}`);
  });
  it('Z900 for a 4-record file is byte-identical to the worked example', () => {
    expect(z900({ recordNo: 4, vatId: VAT, primaryId: PID, totalRecords: 4 })).toBe(`Z900000000004123456782482915736401827&OF1.31&000000000000004${sp(50)}`);
  });
  it('summary line for 1 C100', () => expect(summaryLine('C100', 1)).toBe('C100000000000000001'));
});

const exampleC100: C100Input = {
  recordNo: 2,
  vatId: VAT,
  docType: 305,
  docNumber: '1001',
  issueDate: '2025-01-15',
  issueTime: '09:30',
  partyName: 'Customer Ltd',
  partyVatId: '514000004',
  valueDate: '2025-01-15',
  foreignTotal: null,
  amountBeforeDiscount: 100000,
  discount: 10000,
  amountAfterDiscountExVat: 90000,
  vatAmount: 16200,
  totalIncVat: 106200,
  withholding: 0,
  partyKey: 'C-17',
  cancelled: false,
  docDate: '2025-01-15',
  linkNo: 1,
};

describe('C100 field by field (reference §11 C100 example)', () => {
  const r = written(writeC100, exampleC100);
  it.each([
    [1200, 1, 4, 'C100'],
    [1201, 5, 13, '000000002'],
    [1202, 14, 22, '123456782'],
    [1203, 23, 25, '305'],
    [1204, 26, 45, '1001' + sp(16)],
    [1205, 46, 53, '20250115'],
    [1206, 54, 57, '0930'],
    [1207, 58, 107, 'Customer Ltd' + sp(38)],
    [1208, 108, 252, sp(145)],
    [1215, 253, 261, '514000004'],
    [1216, 262, 269, '20250115'],
    [1217, 270, 284, sp(15)],
    [1218, 285, 287, sp(3)],
    [1219, 288, 302, '+00000000100000'],
    [1220, 303, 317, '-00000000010000'],
    [1221, 318, 332, '+00000000090000'],
    [1222, 333, 347, '+00000000016200'],
    [1223, 348, 362, '+00000000106200'],
    [1224, 363, 374, '+00000000000'],
    [1225, 375, 389, 'C-17' + sp(11)],
    [1226, 390, 399, sp(10)],
    [1228, 400, 400, ' '],
    [1230, 401, 408, '20250115'],
    [1231, 409, 415, sp(7)],
    [1233, 416, 424, sp(9)],
    [1234, 425, 431, '0000001'],
    [1235, 432, 444, sp(13)],
  ])('field %d at %d–%d', (_f, from, to, expected) => expect(col(r, from, to)).toBe(expected));
  it('is 444 characters', () => expect(r).toHaveLength(444));
  it('a cancelled document carries "1" in 1228; withholding is written positive', () => {
    const c = written(writeC100, { ...exampleC100, cancelled: true, withholding: 25000 });
    expect(col(c, 400, 400)).toBe('1');
    expect(col(c, 363, 374)).toBe('+00000025000');
  });
  it('Hebrew name and address land in their columns, each letter one character', () => {
    const c = written(writeC100, { ...exampleC100, partyName: 'חברת הדוגמה בע״מ', partyCity: 'תל אביב', partyCountryCode: 'IL' });
    expect(col(c, 58, 107)).toBe('חברת הדוגמה בע"מ' + sp(34));
    expect(col(c, 168, 197)).toBe('תל אביב' + sp(23));
    expect(col(c, 236, 237)).toBe('IL');
    expect(c).toHaveLength(444);
  });
  it('a foreign-currency total fills 1217 and 1218', () => {
    const c = written(writeC100, { ...exampleC100, foreignTotal: 30000, foreignCurrency: 'USD' });
    expect(col(c, 270, 287)).toBe('+00000000030000USD');
  });
});

describe('D110 field by field', () => {
  const r = written(writeD110, {
    recordNo: 3,
    vatId: VAT,
    docType: 305,
    docNumber: '1001',
    lineNo: 2,
    baseDocType: 200,
    baseDocNumber: '77',
    transactionType: 1,
    sku: 'SKU-9',
    description: 'ייעוץ',
    unit: 'שעה',
    quantity: 2.5,
    unitPriceExVat: 40000,
    lineDiscount: 5000,
    lineTotal: 95000,
    vatRateBp: 1800,
    docDate: '2025-01-15',
    linkNo: 1,
  });
  it.each([
    [1250, 1, 4, 'D110'],
    [1251, 5, 13, '000000003'],
    [1252, 14, 22, VAT],
    [1253, 23, 25, '305'],
    [1254, 26, 45, '1001' + sp(16)],
    [1255, 46, 49, '0002'],
    [1256, 50, 52, '200'],
    [1257, 53, 72, '77' + sp(18)],
    [1258, 73, 73, '1'],
    [1259, 74, 93, 'SKU-9' + sp(15)],
    [1260, 94, 123, 'ייעוץ' + sp(25)],
    [1261, 124, 173, sp(50)],
    [1262, 174, 203, sp(30)],
    [1263, 204, 223, 'שעה' + sp(17)],
    [1264, 224, 240, '+0000000000025000'],
    [1265, 241, 255, '+00000000040000'],
    [1266, 256, 270, '-00000000005000'],
    [1267, 271, 285, '+00000000095000'],
    [1268, 286, 289, '1800'],
    [1270, 290, 296, sp(7)],
    [1272, 297, 304, '20250115'],
    [1273, 305, 311, '0000001'],
    [1274, 312, 318, sp(7)],
    [1275, 319, 339, sp(21)],
  ])('field %d at %d–%d', (_f, from, to, expected) => expect(col(r, from, to)).toBe(expected));
  it('is 339 characters', () => expect(r).toHaveLength(339));
});

describe('D120 field by field', () => {
  const cheque = written(writeD120, {
    recordNo: 4,
    vatId: VAT,
    docType: 400,
    docNumber: '55',
    lineNo: 1,
    method: 2,
    bankNo: '12',
    bankBranch: '345',
    bankAccount: '123-456789',
    chequeNo: '1000123',
    dueDate: '2025-02-01',
    amount: 100000,
    docDate: '2025-01-15',
    linkNo: 9,
  });
  it.each([
    [1300, 1, 4, 'D120'],
    [1301, 5, 13, '000000004'],
    [1302, 14, 22, VAT],
    [1303, 23, 25, '400'],
    [1304, 26, 45, '55' + sp(18)],
    [1305, 46, 49, '0001'],
    [1306, 50, 50, '2'],
    [1307, 51, 60, '0000000012'],
    [1308, 61, 70, '0000000345'],
    [1309, 71, 85, '000000123456789'],
    [1310, 86, 95, '0001000123'],
    [1311, 96, 103, '20250201'],
    [1312, 104, 118, '+00000000100000'],
    [1313, 119, 119, '0'],
    [1314, 120, 139, sp(20)],
    [1315, 140, 140, '0'],
    [1320, 141, 147, sp(7)],
    [1322, 148, 155, '20250115'],
    [1323, 156, 162, '0000009'],
    [1324, 163, 222, sp(60)],
  ])('cheque: field %d at %d–%d', (_f, from, to, expected) => expect(col(cheque, from, to)).toBe(expected));
  it('a card payment carries acquirer, card name and deal type; bank fields are zeros', () => {
    const card = written(writeD120, {
      recordNo: 5,
      vatId: VAT,
      docType: 320,
      docNumber: '8',
      lineNo: 1,
      method: 3,
      dueDate: '2025-01-20',
      amount: 50000,
      acquirer: 6,
      cardName: 'ויזה',
      dealType: 2,
      docDate: '2025-01-15',
      linkNo: 2,
    });
    expect(col(card, 50, 50)).toBe('3');
    expect(col(card, 51, 95)).toBe('0'.repeat(45));
    expect(col(card, 119, 119)).toBe('6');
    expect(col(card, 120, 139)).toBe('ויזה' + sp(16));
    expect(col(card, 140, 140)).toBe('2');
    expect(card).toHaveLength(222);
  });
  it('payment codes 91–93 are written as 9 (other)', () => {
    expect(paymentMethodCode(91)).toBe(9);
    expect(paymentMethodCode(92)).toBe(9);
    expect(paymentMethodCode(93)).toBe(9);
    expect(paymentMethodCode(1)).toBe(1);
    expect(() => paymentMethodCode(94)).toThrow();
    const bit = written(writeD120, {
      recordNo: 1,
      vatId: VAT,
      docType: 400,
      docNumber: '1',
      lineNo: 1,
      method: 91,
      amount: 1,
      docDate: '2025-01-01',
      linkNo: 1,
    });
    expect(col(bit, 50, 50)).toBe('9');
  });
});

describe('A000 field by field', () => {
  const r = a000({
    totalRecords: 4,
    vatId: VAT,
    primaryId: PID,
    softwareRegNo: '',
    softwareName: 'pinkas',
    softwareVersion: '0.1.0',
    makerVatId: '514000004',
    makerName: 'pinkas',
    softwareType: 2,
    savePath: 'OPENFRMT/12345678.25/01151030',
    bookkeepingType: 0,
    balanceLevel: 0,
    businessName: 'עסק לדוגמה',
    street: 'הרצל 1',
    city: 'חיפה',
    rangeFrom: '2025-01-01',
    rangeTo: '2025-12-31',
    processDate: '2025-01-15',
    processTime: '10:30',
    languageCode: 0,
    charset: 1,
    compressor: 'zip',
    currency: 'ILS',
    hasBranches: 0,
  });
  it.each([
    [1000, 1, 4, 'A000'],
    [1001, 5, 9, sp(5)],
    [1002, 10, 24, '000000000000004'],
    [1003, 25, 33, VAT],
    [1004, 34, 48, PID],
    [1005, 49, 56, '&OF1.31&'],
    [1006, 57, 64, '00000000'],
    [1007, 65, 84, 'pinkas' + sp(14)],
    [1008, 85, 104, '0.1.0' + sp(15)],
    [1009, 105, 113, '514000004'],
    [1010, 114, 133, 'pinkas' + sp(14)],
    [1011, 134, 134, '2'],
    [1012, 135, 184, 'OPENFRMT/12345678.25/01151030' + sp(21)],
    [1013, 185, 185, '0'],
    [1014, 186, 186, '0'],
    [1015, 187, 195, '000000000'],
    [1016, 196, 204, '000000000'],
    [1017, 205, 214, sp(10)],
    [1018, 215, 264, 'עסק לדוגמה' + sp(40)],
    [1019, 265, 314, 'הרצל 1' + sp(44)],
    [1020, 315, 324, sp(10)],
    [1021, 325, 354, 'חיפה' + sp(26)],
    [1022, 355, 362, sp(8)],
    [1023, 363, 366, '0000'],
    [1024, 367, 374, '20250101'],
    [1025, 375, 382, '20251231'],
    [1026, 383, 390, '20250115'],
    [1027, 391, 394, '1030'],
    [1028, 395, 395, '0'],
    [1029, 396, 396, '1'],
    [1030, 397, 416, 'zip' + sp(17)],
    [1032, 417, 419, 'ILS'],
    [1034, 420, 420, '0'],
    [1035, 421, 466, sp(46)],
  ])('field %d at %d–%d', (_f, from, to, expected) => expect(col(r, from, to)).toBe(expected));
  it('is 466 characters', () => expect(r).toHaveLength(466));
});

describe('B100, B110, M100 field positions', () => {
  it('B100', () => {
    const r = written(writeB100, {
      recordNo: 7,
      vatId: VAT,
      entryNo: 12,
      lineNo: 2,
      reference: '1001',
      referenceDocType: 305,
      details: 'הכנסה',
      date: '2025-01-15',
      valueDate: '2025-01-16',
      account: '4000',
      side: 2,
      amount: 90000,
      entryDate: '2025-01-17',
    });
    expect(r).toHaveLength(317);
    expect(col(r, 23, 32)).toBe('0000000012');
    expect(col(r, 33, 37)).toBe('00002');
    expect(col(r, 38, 45)).toBe('00000000');
    expect(col(r, 61, 80)).toBe('1001' + sp(16));
    expect(col(r, 81, 83)).toBe('305');
    expect(col(r, 104, 106)).toBe('000');
    expect(col(r, 107, 156)).toBe('הכנסה' + sp(45));
    expect(col(r, 157, 172)).toBe('2025011520250116');
    expect(col(r, 173, 187)).toBe('4000' + sp(11));
    expect(col(r, 203, 203)).toBe('2');
    expect(col(r, 207, 221)).toBe('+00000000090000');
    expect(col(r, 222, 236)).toBe('+00000000000000');
    expect(col(r, 237, 248)).toBe('+00000000000');
    expect(col(r, 276, 283)).toBe('20250117');
    expect(col(r, 293, 317)).toBe(sp(25));
  });
  it('B110: credit opening balance is negative', () => {
    const r = b110({
      recordNo: 8,
      vatId: VAT,
      accountKey: '4000',
      accountName: 'הכנסות',
      trialBalanceCode: '400',
      trialBalanceName: 'הכנסות',
      openingBalance: -150000,
      totalDebit: 0,
      totalCredit: 90000,
      partyVatId: '514000004',
    });
    expect(r).toHaveLength(376);
    expect(col(r, 23, 37)).toBe('4000' + sp(11));
    expect(col(r, 38, 87)).toBe('הכנסות' + sp(44));
    expect(col(r, 278, 292)).toBe('-00000000150000');
    expect(col(r, 293, 307)).toBe('+00000000000000');
    expect(col(r, 308, 322)).toBe('+00000000090000');
    expect(col(r, 323, 326)).toBe('0000');
    expect(col(r, 327, 335)).toBe('514000004');
    expect(col(r, 343, 357)).toBe('+00000000000000');
    expect(col(r, 361, 376)).toBe(sp(16));
  });
  it('M100 with the spec §4.8 example (item 100101: opening 5, in 195, out 120)', () => {
    const r = m100({
      recordNo: 9,
      vatId: VAT,
      internalCode: '100101',
      name: 'פריט',
      unit: 'יחידה',
      openingQty: 5,
      qtyIn: 195,
      qtyOut: 120,
      costOutsideBonded: 1250,
    });
    expect(r).toHaveLength(298);
    expect(col(r, 63, 82)).toBe('100101' + sp(14));
    expect(col(r, 83, 132)).toBe('פריט' + sp(46));
    expect(col(r, 173, 192)).toBe('יחידה' + sp(15));
    expect(col(r, 193, 204)).toBe('+00000000500');
    expect(col(r, 205, 216)).toBe('+00000019500');
    expect(col(r, 217, 228)).toBe('+00000012000');
    expect(col(r, 229, 238)).toBe('0000001250');
    expect(col(r, 239, 248)).toBe('0000000000');
  });
});
