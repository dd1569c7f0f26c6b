/** The pure parts: VAT periods, the PCN874 records written and read back, and the mapping from ledger lines. */
import { describe, expect, it } from 'vitest';
import { parseVatPeriod } from '../../src/vat/period.ts';
import {
  CLOSING_LENGTH,
  ENTRY_LENGTH,
  HEADER_LENGTH,
  closingRecord,
  entryRecord,
  formatPcn874,
  headerRecord,
  lastDigits,
  readPcn874,
  shekels,
  type Pcn874Entry,
  type Pcn874Header,
} from '../../src/vat/pcn874.ts';
import { entryOfLine, pcn874Of, verifyPcn874 } from '../../src/vat/pcn874-map.ts';
import type { LedgerVatReport, VatLine } from '../../src/vat/report.ts';

describe('VAT periods', () => {
  it.each([
    ['2026-02', 'monthly', '2026-02-01', '2026-02-28', '202602'],
    ['2024-02', 'monthly', '2024-02-01', '2024-02-29', '202402'],
    ['2026-12', 'monthly', '2026-12-01', '2026-12-31', '202612'],
    ['2026-01/2026-02', 'bimonthly', '2026-01-01', '2026-02-28', '202601'],
    ['2026-11/2026-12', 'bimonthly', '2026-11-01', '2026-12-31', '202611'],
    ['2026-03/2026-04', 'bimonthly', '2026-03-01', '2026-04-30', '202603'],
    // eslint-disable-next-line @typescript-eslint/max-params -- test.each spreads a row into arguments
  ])('%s → %s %s..%s', (text, kind, from, to, first) => {
    expect(parseVatPeriod(text)).toEqual({ period: text, kind, from, to, firstMonth: first });
  });

  it.each([
    ['2026-13', 'not a month'],
    ['2026-2', 'not a month'],
    ['26-02', 'not a month'],
    ['2026-02/2026-03', 'odd month'],
    ['2026-01/2026-03', 'two consecutive months'],
    ['2026-11/2027-12', 'two consecutive months'],
    ['2026-01/2026-02/2026-03', 'YYYY-MM/YYYY-MM'],
    ['1999-01', 'out of range'],
    ['', 'not a month'],
  ])('refuses %j (%s) with 400 validation', (text, words) => {
    let err: any;
    try {
      parseVatPeriod(text, 'body.period');
    } catch (e) {
      err = e;
    }
    expect(err?.status).toBe(400);
    expect(err?.reason).toBe('validation');
    expect(err?.message).toContain('body.period');
    expect(err?.message).toContain(words);
  });
});

describe('amounts and references', () => {
  it.each([
    [0, 0],
    [49, 0],
    [50, 1],
    [149, 1],
    [150, 2],
    [18_000, 180],
    [-49, 0],
    [-50, -1],
    [-150, -2],
    [123_456_789, 1_234_568],
    [-99, -1],
  ])('shekels(%i agorot) = %i', (agorot, want) => expect(shekels(agorot)).toBe(want));

  it('refuses a non-integer amount', () => expect(() => shekels(1.5)).toThrow(RangeError));

  it.each([
    ['B-77', 4, '0077'],
    ['INV/2026/0001234567', 9, '600001234567'.slice(-9)],
    [null, 9, '000000000'],
    [42, 9, '000000042'],
    ['אבג', 4, '0000'],
  ])('lastDigits(%j, %i) = %s', (value, n, want) => expect(lastDigits(value as any, n)).toBe(want));
});

const header: Pcn874Header = {
  vatId: '516179157',
  period: '202602',
  generated: '20260301',
  taxableSales: 1_500,
  taxableVat: 270,
  salesCount: 3,
  zeroOrExemptSales: 200,
  otherInputsVat: 36,
  equipmentInputsVat: 900,
  inputsCount: 2,
  vatPayable: -666,
};
const sale: Pcn874Entry = {
  type: 'S',
  counterpartyId: '512200502',
  date: '20260210',
  refGroup: '0000',
  refNumber: '000000001',
  vat: 180,
  exVat: 1_000,
  allocation: '000000000',
};

describe('records', () => {
  it('the header: 131 characters, fields at their positions (worked by hand)', () => {
    const r = headerRecord(header);
    expect(r).toHaveLength(HEADER_LENGTH);
    expect(HEADER_LENGTH).toBe(131);
    expect(r).toBe(
      'O' +
        '516179157' +
        '202602' +
        '1' +
        '20260301' +
        '+00000001500' +
        '+000000270' +
        '+00000000000' +
        '+000000000' +
        '000000003' +
        '+00000000200' +
        '+000000036' +
        '+000000900' +
        '000000002' +
        '-00000000666',
    );
  });

  it('an entry: 60 characters; a credit carries its minus on the amount, its VAT stays positive', () => {
    expect(entryRecord(sale)).toBe('S' + '512200502' + '20260210' + '0000' + '000000001' + '000000180' + '+0000001000' + '000000000');
    const credit = entryRecord({ ...sale, exVat: -1_000, refNumber: '000000002' });
    expect(credit).toHaveLength(ENTRY_LENGTH);
    expect(credit.slice(31, 40)).toBe('000000180');
    expect(credit.slice(40, 51)).toBe('-0000001000');
  });

  it('the closing record: X and the VAT number', () => {
    expect(closingRecord('516179157')).toBe('X516179157');
    expect(CLOSING_LENGTH).toBe(10);
  });

  it.each([
    ['an amount too wide', () => headerRecord({ ...header, taxableSales: 1e11 })],
    ['a VAT number with letters', () => headerRecord({ ...header, vatId: '51617915X' })],
    ['a VAT number of 10 digits', () => closingRecord('5161791570')],
    ['a negative VAT on an entry', () => entryRecord({ ...sale, vat: -1 })],
    ['an unknown entry type', () => entryRecord({ ...sale, type: 'Z' as any })],
    ['a fractional amount', () => entryRecord({ ...sale, exVat: 10.5 })],
    ['a negative count', () => headerRecord({ ...header, salesCount: -1 })],
    ['a reference group in lower case', () => entryRecord({ ...sale, refGroup: 'ab12' })],
    ['a reference group of 3 characters', () => entryRecord({ ...sale, refGroup: '000' })],
  ])('refuses %s', (_name, write) => expect(write).toThrow(RangeError));

  it('a whole file: ASCII, every record ends with CR LF, and reads back to the same values', () => {
    const entries: Pcn874Entry[] = [
      sale,
      { ...sale, type: 'L', counterpartyId: '000000000', refNumber: '000000002', vat: 90, exVat: 500 },
      { ...sale, type: 'Y', refNumber: '000000003', vat: 0, exVat: 200 },
      { ...sale, type: 'T', counterpartyId: '123456782', refGroup: 'A1B2', refNumber: '000000077', vat: 36, exVat: 300 }, // A(4): a series
      { ...sale, type: 'K', counterpartyId: '000000000', refNumber: '000000001', vat: 900, exVat: -5_000 },
    ];
    const bytes = formatPcn874({ header, entries });
    expect(bytes.toString('ascii').split('\r\n')).toHaveLength(entries.length + 3); // + header, closing, the empty tail
    expect(bytes.length).toBe(HEADER_LENGTH + 5 * ENTRY_LENGTH + CLOSING_LENGTH + 7 * 2);
    const read = readPcn874(bytes);
    expect(read.problems).toEqual([]);
    expect(read.header).toEqual(header);
    expect(read.entries).toEqual(entries);
    expect(read.closingVatId).toBe('516179157');
  });
});

describe('the reader finds what is wrong', () => {
  const good = formatPcn874({ header: { ...header, salesCount: 1, inputsCount: 0 }, entries: [sale] }).toString('latin1');
  const problemsOf = (text: string) => readPcn874(Buffer.from(text, 'latin1')).problems.join(' | ');

  it.each([
    ['LF line ends', good.replace(/\r\n/g, '\n'), 'CR LF'],
    ['a short entry', good.replace('+0000001000', '+000001000'), 'an entry is 60 characters'],
    ['a missing closing record', good.split('\r\n').slice(0, 2).join('\r\n') + '\r\n', 'closing'],
    ['a closing record of another dealer', good.replace('X516179157', 'X512200502'), 'is not the header'],
    ['a count that does not match', good.replace(/^(.{69})000000001/, '$1000000002'), 'counts 2 sales'],
    ['a letter in an amount', good.replace('+0000001000', '+00000010A0'), 'not a sign and 10 digits'],
    ['an unknown entry type', good.replace('\r\nS512', '\r\nZ512'), 'not a PCN874 entry type'],
    ['a header that is not first', good.replace(/^O/, 'Q'), 'the first record is the header'],
    ['a byte outside ASCII', good.replace('0000\r\nX', '000\u00e9\r\nX'), 'printable ASCII'],
    ['a missing final CR LF', good.slice(0, -2), 'does not end with CR LF'],
    ['a report type other than 1', good.replace(/^(.{16})1/, '$12'), 'reportType'],
    ['a reference group that is not A(4)', good.replace(/(\r\nS.{17})0000/, '$1ab-0'), 'refGroup'],
  ])('%s', (_name, text, words) => expect(problemsOf(text)).toContain(words));

  it('an empty file', () => expect(readPcn874(Buffer.alloc(0)).problems.join(' ')).toContain('a header and a closing record'));
});

const doc = (over: Partial<VatLine> & { taxId?: string | null; no?: number; docType?: number }): VatLine => ({
  entryNo: over.entryNo ?? 1,
  entryId: 'je_x',
  entryDate: '2026-02-10',
  source: 'document',
  treatment: over.treatment ?? 'taxable',
  exVat: over.exVat ?? 100_049,
  outputVat: over.outputVat ?? 18_009,
  inputVat: 0,
  inputVatFixedAssets: 0,
  document: {
    id: 'doc_x',
    docType: over.docType ?? 305,
    docNumber: over.no ?? 12,
    date: '2026-02-09',
    partyName: 'לקוח',
    partyTaxId: over.taxId === undefined ? '512200502' : over.taxId,
    allocationNumber: null,
  },
  expense: null,
});
const exp = (over: Partial<VatLine> & { taxId?: string | null; allocation?: string }): VatLine => ({
  entryNo: over.entryNo ?? 2,
  entryId: 'je_y',
  entryDate: '2026-02-11',
  source: 'expense',
  treatment: null,
  exVat: over.exVat ?? 30_000,
  outputVat: 0,
  inputVat: over.inputVat ?? 3_600,
  inputVatFixedAssets: over.inputVatFixedAssets ?? 0,
  document: null,
  expense: {
    id: 'exp_y',
    supplierName: 'בזק',
    supplierTaxId: over.taxId === undefined ? '512200502' : over.taxId,
    supplierDocNumber: 'B-77',
    allocationNumber: over.allocation ?? null,
    date: '2026-02-10',
    storno: false,
  },
});

describe('from ledger lines to entries', () => {
  it.each([
    [
      'an identified customer: S, rounded shekels, the document date',
      doc({}),
      { type: 'S', counterpartyId: '512200502', date: '20260209', refGroup: '0305', refNumber: '000000012', vat: 180, exVat: 1_000 },
    ],
    ['no customer tax id: L with zeros', doc({ taxId: null }), { type: 'L', counterpartyId: '000000000' }],
    [
      'an export: Y, no VAT, the other side 999999999 (no export entry number)',
      doc({ treatment: 'zeroRatedExport', outputVat: 0 }),
      { type: 'Y', counterpartyId: '999999999', vat: 0, refNumber: '000000012' },
    ],
    ['a credit note: VAT positive, amount negative', doc({ exVat: -100_000, outputVat: -18_000 }), { vat: 180, exVat: -1_000 }],
    ['a 330: its own series in the reference group', doc({ docType: 330, exVat: -100_000, outputVat: -18_000 }), { refGroup: '0330', refNumber: '000000012' }],
    ["an input: the supplier's number, group zeros", exp({}), { refGroup: '0000' }],
    [
      'an expense from a known supplier: T with the deductible VAT',
      exp({}),
      { type: 'T', counterpartyId: '512200502', refNumber: '000000077', vat: 36, exVat: 300 },
    ],
    [
      // Issue 29: T wrote 000000000 for every input; an invoice above the threshold claims its VAT only with its number.
      "an expense with the supplier invoice's allocation number: T carries it",
      exp({ allocation: '202600123' }),
      { type: 'T', vat: 36, allocation: '202600123' },
    ],
    ['an expense without one: zeros in the field', exp({}), { type: 'T', allocation: '000000000' }],
    ['petty cash (K, an aggregate) writes zeros there', exp({ taxId: null, allocation: '202600123' }), { type: 'K', allocation: '000000000' }],
    [
      'an expense without a supplier tax id: K, zeros, its reference the number of invoices (one)',
      exp({ taxId: null }),
      { type: 'K', counterpartyId: '000000000', refNumber: '000000001' },
    ],
    ['a fixed-asset expense', exp({ inputVat: 0, inputVatFixedAssets: 90_000, exVat: 500_000 }), { type: 'T', vat: 900, exVat: 5_000 }],
    ['a storno', exp({ inputVat: -3_600, exVat: -30_000 }), { vat: 36, exVat: -300 }],
  ])('%s', (_name, line, want) => expect(entryOfLine(line)).toMatchObject(want));

  it('no entry for an expense without deductible VAT, nor for a manual entry', () => {
    expect(entryOfLine(exp({ inputVat: 0 }))).toBeNull();
    expect(entryOfLine({ ...exp({}), source: 'manual', expense: null })).toBeNull();
  });

  it('the header is the report rounded; a file read back verifies against the report, a tampered one does not', () => {
    const lines = [doc({ entryNo: 1 }), doc({ entryNo: 2, no: 13, exVat: -100_000, outputVat: -18_000 }), exp({ entryNo: 3 })];
    const report = {
      outputVat: 9,
      inputVat: 3_600,
      inputVatFixedAssets: 0,
      vatPayable: -3_591,
      sales: { taxable: 49, zeroRatedExport: 0, eilat: 0, exempt: 0, count: 2 },
      zeroRatedOrExemptSales: 0,
    } as LedgerVatReport;
    const file = pcn874Of('516179157', { report, lines, firstMonth: '202602', generated: '2026-03-01' });
    expect(file.header).toMatchObject({
      taxableSales: 0,
      taxableVat: 0,
      otherInputsVat: 36,
      vatPayable: -36,
      salesCount: 2,
      inputsCount: 1,
      generated: '20260301',
    });
    const bytes = formatPcn874(file);
    expect(verifyPcn874(readPcn874(bytes), '516179157', report, lines)).toMatchObject({
      ok: true,
      problems: [],
      recordCounts: { sales: 2, inputs: 1, total: 5 },
    });
    const tampered = Buffer.from(bytes.toString('latin1').replace('000000036+0000000300', '000000037+0000000300'), 'latin1');
    const v = verifyPcn874(readPcn874(tampered), '516179157', report, lines);
    expect(v.ok).toBe(false);
    expect(v.problems.join(' ')).toContain('entry 3');
    const otherReport = { ...report, outputVat: 20_000 };
    expect(verifyPcn874(readPcn874(bytes), '516179157', otherReport, lines).problems.join(' ')).toContain('taxableVat');
  });
});
