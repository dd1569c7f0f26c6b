/**
 * Issue 15 item 4: signs and codes per document type, the maker's VAT number, no invented M100.
 * Spec: reference/openfrmt.md §2 (sign conventions, §2.4(יב)), §6 clarifications 1, 4, 5, §4.3 (1224, 1225), §3.1 (1009).
 */
import { describe, expect, it } from 'vitest';
import { a000, c100Amounts, writeC100, z900, CRLF, type C100Input, type A000Input } from '../../src/openfrmt/records.ts';
import { writeD110 } from '../../src/openfrmt/line-records.ts';
import { encodeIso88598 } from '../../src/openfrmt/charset.ts';
import { m100, written } from '../helpers/openfrmt-records.ts';
import { BkmvAssembler, iniFile, type ExportDocument } from '../../src/openfrmt/assemble.ts';
import { BkmvReader, readIni } from '../../src/openfrmt/reader.ts';
import { CrlfSplitter, parseRecord } from '../../src/openfrmt/record-parse.ts';
import { loadConfig, ConfigError, TEST_MAKER_TAX_ID } from '../../src/platform/config.ts';

const VAT = '516179157';
const col = (r: string, from: number, to: number) => r.slice(from - 1, to);
const header: Omit<C100Input, 'recordNo' | 'vatId' | 'docType' | 'docNumber' | 'docDate' | 'linkNo'> = {
  issueDate: '2026-03-01',
  issueTime: '10:00',
  partyName: 'x',
  partyKey: 'C00001',
  amountBeforeDiscount: 50_000,
  discount: 0,
  amountAfterDiscountExVat: 50_000,
  vatAmount: 0,
  totalIncVat: 50_000,
  withholding: 2_500,
  cancelled: false,
};
const head = { recordNo: 2, vatId: VAT, docType: 400, docNumber: '7', docDate: '2026-03-01', linkNo: 1 };

describe('C100 signs', () => {
  it('standard receipt: amounts +, withholding + (clarification 4)', () => {
    expect(col(written(writeC100, { ...header, ...head }), 288, 374)).toBe(
      '+00000000050000+00000000000000+00000000050000+00000000000000+00000000050000+00000002500',
    );
  });
  it('negative receipt: every amount −, withholding − too (the whole document has the opposite effect)', () => {
    const r = written(writeC100, { ...header, ...head, amountBeforeDiscount: -50_000, amountAfterDiscountExVat: -50_000, totalIncVat: -50_000 });
    expect(col(r, 288, 374)).toBe('-00000000050000+00000000000000-00000000050000+00000000000000-00000000050000-00000002500');
  });
  it('document discount: − on a standard document, + on a negative one (clarification 5)', () => {
    expect(c100Amounts({ ...header, discount: 500, withholding: 0 })[1]).toBe(-500);
    expect(c100Amounts({ ...header, amountBeforeDiscount: -1, totalIncVat: -1, discount: 500, withholding: 0 })[1]).toBe(500);
  });
  it('credit note 330: positive amounts, discount still − (clarification 1: the type carries the meaning)', () => {
    const r = written(writeC100, {
      ...header,
      ...head,
      docType: 330,
      amountBeforeDiscount: 49_000,
      discount: 500,
      amountAfterDiscountExVat: 48_500,
      vatAmount: 8_730,
      totalIncVat: 57_230,
      withholding: 0,
    });
    expect(col(r, 288, 374)).toBe('+00000000049000-00000000000500+00000000048500+00000000008730+00000000057230+00000000000');
  });
  it('D110 line discount is opposite to the line total', () => {
    const line = {
      recordNo: 3,
      vatId: VAT,
      docType: 305,
      docNumber: '1',
      lineNo: 1,
      description: 'x',
      unit: 'יחידה',
      quantity: 1,
      unitPriceExVat: 1000,
      lineDiscount: 100,
      lineTotal: 900,
      vatRateBp: 1800,
      docDate: '2026-03-01',
      linkNo: 1,
    };
    expect(col(written(writeD110, line), 256, 270)).toBe('-00000000000100');
  });
});

function build(docs: ExportDocument[]) {
  const asm = new BkmvAssembler(VAT, '482915736401827');
  const parts = [asm.open(), ...docs.map((d) => asm.document(d))];
  const z = asm.close();
  parts.push(z.bytes);
  return Buffer.concat(parts);
}
function readBack(bkmv: Buffer) {
  const reader = new BkmvReader();
  const splitter = new CrlfSplitter();
  for (const line of splitter.push(bkmv)) reader.pushLine(line);
  return reader.finish();
}
const doc = (docType: number, h: Partial<ExportDocument['header']>): ExportDocument => ({
  docType,
  docNumber: '1',
  docDate: '2026-03-01',
  header: { ...header, ...h },
  lines: [],
  payments: [],
});
/** Rewrites one signed field of the first C100 (columns from–to) to a value. */
function patch(bkmv: Buffer, from: number, value: string): Buffer {
  const t = bkmv.toString('latin1');
  const at = t.indexOf('C100') + from - 1;
  return Buffer.from(t.slice(0, at) + value + t.slice(at + value.length), 'latin1');
}

describe('the reader checks the signs per document type', () => {
  it('a negative receipt written by the exporter reads clean', () => {
    const s = readBack(build([doc(400, { amountBeforeDiscount: -50_000, amountAfterDiscountExVat: -50_000, totalIncVat: -50_000 })]));
    expect(s.issues).toEqual([]);
    expect(s.byDocType[0]).toMatchObject({ incVat: -50_000, withholding: -2_500 });
  });
  it('a positive withholding on a negative receipt is reported', () => {
    const b = build([doc(400, { amountBeforeDiscount: -50_000, amountAfterDiscountExVat: -50_000, totalIncVat: -50_000 })]);
    const s = readBack(patch(b, 363, '+00000002500'));
    expect(s.issues.map((i) => i.field)).toContain(1224);
  });
  it('a negative 330 is reported', () => {
    const b = build([doc(330, { withholding: 0, vatAmount: 0 })]);
    expect(readBack(b).issues).toEqual([]);
    const s = readBack(patch(patch(patch(b, 288, '-00000000050000'), 318, '-00000000050000'), 348, '-00000000050000'));
    expect(s.issues.some((i) => /330/.test(i.problem))).toBe(true);
  });
  it('a receipt breaking 1219 = 1221 = 1223, or withholding on an invoice, is reported', () => {
    expect(readBack(patch(build([doc(400, {})]), 288, '+00000000040000')).issues.map((i) => i.field)).toContain(1219);
    expect(readBack(build([doc(305, {})])).issues.map((i) => i.field)).toContain(1224);
  });
  it('a duplicated M100 internal code is reported', () => {
    const primaryId = '482915736401827';
    const item = { vatId: VAT, internalCode: 'A', name: 'a', unit: 'יחידה', openingQty: 0, qtyIn: 0, qtyOut: 0 };
    // The service writes no M100 (it keeps no inventory): the two items stand between the A100 and the Z900.
    const items = [m100({ ...item, recordNo: 2 }), m100({ ...item, recordNo: 3 }), z900({ recordNo: 4, vatId: VAT, primaryId, totalRecords: 4 })];
    const b = Buffer.concat([new BkmvAssembler(VAT, primaryId).open(), encodeIso88598(items.join(CRLF) + CRLF)]);
    expect(readBack(b).issues.map((i) => i.field)).toContain(1455);
  });
});

const a000Input = (makerVatId: string): A000Input => ({
  totalRecords: 2,
  vatId: VAT,
  primaryId: '482915736401827',
  softwareRegNo: '',
  softwareName: 'pinkas',
  softwareVersion: '0.1',
  makerVatId,
  makerName: 'pinkas',
  softwareType: 2,
  savePath: 'x',
  bookkeepingType: 0,
  balanceLevel: 0,
  businessName: 'עסק',
  rangeFrom: '2026-01-01',
  rangeTo: '2026-01-31',
  processDate: '2026-03-01',
  processTime: '10:00',
  languageCode: 0,
  charset: 1,
  compressor: 'zip',
  currency: 'ILS',
  hasBranches: 0,
});

describe('A000/1009, the software maker VAT number', () => {
  it('is never written as zeros', () => {
    expect(() => a000(a000Input(''))).toThrow(/1009.*OPENFRMT_MAKER_TAX_ID/);
    expect(() => a000(a000Input('000000000'))).toThrow(/1009/);
    expect(col(a000(a000Input('516179157')), 105, 113)).toBe('516179157');
  });
  it('the reader refuses zeros or a bad check digit in 1009', () => {
    const text = a000(a000Input('516179157'));
    expect(parseRecord('A000', text).problems).toEqual([]);
    const summary = readBack(build([]));
    const ini = (t: string) => readIni(Buffer.from(t + '\r\n', 'latin1'), summary).issues.map((i) => i.field);
    expect(ini(text)).not.toContain(1009);
    expect(ini(text.slice(0, 104) + '000000000' + text.slice(113))).toContain(1009);
    expect(ini(text.slice(0, 104) + '516179158' + text.slice(113))).toContain(1009);
  });
  it('config: checksum-validated and normalized; a bad value is a ConfigError naming the variable; test-only default', () => {
    expect(loadConfig({ PINKAS_ENV: 'production', OPENFRMT_MAKER_TAX_ID: '51617915-7' }).exports.makerTaxId).toBe('516179157');
    expect(loadConfig({ PINKAS_ENV: 'production', OPENFRMT_MAKER_TAX_ID: '39337423' }).exports.makerTaxId).toBe('039337423');
    for (const bad of ['516179158', '000000000', '12ab', '5161791570']) {
      let err: unknown;
      try {
        loadConfig({ PINKAS_ENV: 'production', OPENFRMT_MAKER_TAX_ID: bad });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).variable).toBe('OPENFRMT_MAKER_TAX_ID');
      expect((err as Error).message).toMatch(/OPENFRMT_MAKER_TAX_ID/);
    }
    expect(loadConfig({ PINKAS_ENV: 'production' }).exports.makerTaxId).toBe('');
    expect(loadConfig({ PINKAS_ENV: 'development' }).exports.makerTaxId).toBe('');
    expect(loadConfig({ PINKAS_ENV: 'test' }).exports.makerTaxId).toBe(TEST_MAKER_TAX_ID);
    expect(iniFile).toBeTypeOf('function');
  });
});
