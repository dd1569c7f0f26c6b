import { describe, expect, it } from 'vitest';
import { BkmvAssembler, iniFile, newPrimaryId, productionDirectory, type ExportDocument } from '../../src/openfrmt/assemble.ts';
import { BkmvReader, readIni } from '../../src/openfrmt/reader.ts';
import { CrlfSplitter, parseRecord } from '../../src/openfrmt/record-parse.ts';
import type { A000Input } from '../../src/openfrmt/records.ts';

const VAT = '123456782';

function invoice(n: number): ExportDocument {
  return {
    docType: 305,
    docNumber: String(1000 + n),
    docDate: '2025-01-15',
    header: {
      issueDate: '2025-01-15',
      issueTime: '09:30',
      partyName: 'לקוח בע״מ',
      partyKey: 'C-1',
      partyVatId: '514000004',
      amountBeforeDiscount: 100000,
      discount: 10000,
      amountAfterDiscountExVat: 90000,
      vatAmount: 16200,
      totalIncVat: 106200,
      withholding: 0,
      cancelled: false,
    },
    lines: [
      { description: 'ייעוץ', unit: 'שעה', quantity: 2, unitPriceExVat: 30000, lineDiscount: 0, lineTotal: 60000, vatRateBp: 1800 },
      { description: 'Widget ₪', unit: 'יחידה', quantity: 1, unitPriceExVat: 40000, lineDiscount: 0, lineTotal: 40000, vatRateBp: 1800 },
    ],
    payments: [],
  };
}

const receipt: ExportDocument = {
  docType: 400,
  docNumber: '7',
  docDate: '2025-01-16',
  header: {
    issueDate: '2025-01-16',
    issueTime: '11:00',
    partyName: 'Buyer',
    partyKey: 'C-2',
    amountBeforeDiscount: 100000,
    discount: 0,
    amountAfterDiscountExVat: 100000,
    vatAmount: 0,
    totalIncVat: 100000,
    withholding: 25000,
    cancelled: false,
  },
  lines: [],
  payments: [
    { method: 2, bankNo: '12', bankBranch: '345', bankAccount: '678', chequeNo: '100', dueDate: '2025-02-01', amount: 60000 },
    { method: 92, amount: 40000 },
  ],
};

function a000For(totalRecords: number, primaryId: string): A000Input {
  return {
    totalRecords,
    vatId: VAT,
    primaryId,
    softwareRegNo: '',
    softwareName: 'pinkas',
    softwareVersion: '0.1',
    makerVatId: '123456782',
    makerName: 'pinkas',
    softwareType: 2,
    savePath: 'OPENFRMT/12345678.25/01151030',
    bookkeepingType: 0,
    balanceLevel: 0,
    businessName: 'עסק',
    rangeFrom: '2025-01-01',
    rangeTo: '2025-01-31',
    processDate: '2025-01-15',
    processTime: '10:30',
    languageCode: 0,
    charset: 1,
    compressor: 'zip',
    currency: 'ILS',
    hasBranches: 0,
  };
}

function build(docs: ExportDocument[]) {
  const asm = new BkmvAssembler(VAT, '482915736401827');
  const parts = [asm.open(), ...docs.map((d) => asm.document(d))];
  const z = asm.close();
  parts.push(z.bytes);
  return { bkmv: Buffer.concat(parts), ini: iniFile(a000For(z.totalRecords, asm.primaryId), asm.counts), counts: asm.counts };
}

function read(bkmv: Buffer, ini: Buffer, chunk = 4096) {
  const reader = new BkmvReader();
  const splitter = new CrlfSplitter();
  for (let i = 0; i < bkmv.length; i += chunk) for (const line of splitter.push(bkmv.subarray(i, i + chunk))) reader.pushLine(line);
  const rest = splitter.end();
  if (rest.length) reader.pushLine(rest);
  const summary = reader.finish();
  return { summary, ini: readIni(ini, summary) };
}

describe('round trip: assembled files read back clean', () => {
  it('two invoices and a receipt with a cheque, an app payment and withholding', () => {
    const { bkmv, ini, counts } = build([invoice(1), invoice(2), receipt]);
    expect(counts).toEqual({ B100: 0, B110: 0, C100: 3, D110: 4, D120: 2, M100: 0 });
    const { summary, ini: iniSummary } = read(bkmv, ini, 100);
    expect(summary.issues).toEqual([]);
    expect(iniSummary.issues).toEqual([]);
    expect(summary.records).toBe(11);
    expect(summary.recordCounts).toEqual({ A100: 1, C100: 3, D110: 4, D120: 2, Z900: 1 });
    const t305 = summary.byDocType.find((t) => t.docType === 305)!;
    expect(t305).toMatchObject({ count: 2, exVat: 180000, vat: 32400, incVat: 212400, lines: 4, linesTotal: 200000 });
    const t400 = summary.byDocType.find((t) => t.docType === 400)!;
    expect(t400).toMatchObject({ count: 1, incVat: 100000, withholding: 25000, payments: 2, paymentsTotal: 100000 });
    expect(iniSummary.counts).toEqual({ C100: 3, D110: 4, D120: 2 });
  });
  it('every record ends with CRLF and there is no bare LF', () => {
    const { bkmv, ini } = build([invoice(1)]);
    for (const f of [bkmv, ini]) {
      const text = f.toString('latin1');
      expect(text.endsWith('\r\n')).toBe(true);
      expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    }
  });
  it('an empty period: A100 and Z900 only, INI with A000 alone', () => {
    const { bkmv, ini } = build([]);
    const { summary, ini: iniSummary } = read(bkmv, ini);
    expect(summary.records).toBe(2);
    expect(summary.issues).toEqual([]);
    expect(iniSummary.issues).toEqual([]);
    expect(ini.toString('latin1').split('\r\n')).toHaveLength(2);
  });
  it('Hebrew is stored in logical order as ISO-8859-8 bytes', () => {
    const { bkmv } = build([invoice(1)]);
    const c100 = bkmv.subarray(97, 97 + 444);
    expect(c100.subarray(57, 66)).toEqual(Buffer.from([0xec, 0xf7, 0xe5, 0xe7, 0x20, 0xe1, 0xf2, 0x22, 0xee]));
  });
});

describe('the reader catches broken files', () => {
  it('a column shifted by one byte', () => {
    const { bkmv, ini } = build([invoice(1)]);
    const text = bkmv.toString('latin1').replace('+00000000090000', '+0000000009000 0');
    const { summary } = read(Buffer.from(text, 'latin1'), ini);
    expect(summary.issues.some((i) => /record length 445/.test(i.problem))).toBe(true);
  });
  it('UTF-8 text instead of ISO-8859-8', () => {
    const { bkmv, ini } = build([invoice(1)]);
    const bad = Buffer.from(bkmv.toString('latin1').replace('Widget', 'Wé'.padEnd(6)), 'latin1');
    const utf = Buffer.concat([bad.subarray(0, 600), Buffer.from('שׁ', 'utf8'), bad.subarray(602)]);
    const { summary } = read(utf, ini);
    expect(summary.issueCount).toBeGreaterThan(0);
  });
  it('LF without CR', () => {
    const { bkmv, ini } = build([invoice(1)]);
    const { summary } = read(Buffer.from(bkmv.toString('latin1').replace('\r\n', '\n'), 'latin1'), ini);
    expect(summary.issues.some((i) => /CR LF/.test(i.problem))).toBe(true);
  });
  it('a signed amount without its sign, a bad date, an empty mandatory name', () => {
    const { bkmv, ini } = build([invoice(1)]);
    let t = bkmv.toString('latin1');
    const at = t.indexOf('C100');
    const rec = t.slice(at, at + 444);
    let broken = rec.slice(0, 287) + '0' + rec.slice(288); // 1219 sign
    broken = broken.slice(0, 400) + '20251332' + broken.slice(408); // 1230
    broken = broken.slice(0, 57) + ' '.repeat(50) + broken.slice(107); // 1207
    t = t.replace(rec, broken);
    const { summary } = read(Buffer.from(t, 'latin1'), ini);
    const fields = summary.issues.map((i) => i.field);
    expect(fields).toEqual(expect.arrayContaining([1219, 1230, 1207]));
  });
  it('running numbers out of order, a wrong Z900 total and a different primary id', () => {
    const { bkmv, ini } = build([invoice(1)]);
    let t = bkmv.toString('latin1');
    t = t.replace('D110000000003', 'D110000000009');
    t = t.replace(
      /Z900(\d{9})(\d{9})(\d{15})&OF1.31&(\d{15})/,
      // eslint-disable-next-line @typescript-eslint/max-params -- the arguments String.replace gives a replacer
      (_m, a, b, _c, d) => `Z900${a}${b}999999999999999&OF1.31&${String(Number(d) + 1).padStart(15, '0')}`,
    );
    const { summary, ini: iniS } = read(Buffer.from(t, 'latin1'), ini);
    const problems = summary.issues.map((i) => i.problem).join('\n');
    expect(problems).toMatch(/running record number 9, expected 3/);
    expect(problems).toMatch(/primary id differs/);
    expect(problems).toMatch(/total 6 but the file has 5/);
    expect(iniS.issues).toEqual([]);
    const otherIni = Buffer.from(ini.toString('latin1').replace('482915736401827', '111111111111111'), 'latin1');
    expect(read(bkmv, otherIni).ini.issues.some((i) => i.field === 1004)).toBe(true);
  });
  it('INI counts that disagree with BKMVDATA, a missing Z900', () => {
    const { bkmv, ini } = build([invoice(1)]);
    const badIni = Buffer.from(ini.toString('latin1').replace('D110000000000000002', 'D110000000000000003'), 'latin1');
    const { ini: iniS } = read(bkmv, badIni);
    expect(iniS.issues.some((i) => /summary says 3 D110 records, BKMVDATA.TXT has 2/.test(i.problem))).toBe(true);
    const noZ = bkmv.subarray(0, bkmv.lastIndexOf(Buffer.from('Z900')));
    expect(read(noZ, ini).summary.issues.some((i) => /last record must be Z900/.test(i.problem))).toBe(true);
  });
  it('a line linked to another document is reported', () => {
    const { bkmv, ini } = build([invoice(1), invoice(2)]);
    const t = bkmv.toString('latin1');
    const firstD110 = t.indexOf('D110');
    const broken = t.slice(0, firstD110 + 304) + '0000002' + t.slice(firstD110 + 311);
    expect(read(Buffer.from(broken, 'latin1'), ini).summary.issues.some((i) => i.field === 1273)).toBe(true);
  });
  it('parseRecord rejects a record of the wrong length', () => {
    expect(parseRecord('A100', 'A100').problems[0].problem).toMatch(/record length 4/);
  });
});

describe('production directory and primary id', () => {
  it('first 8 digits of the 9-digit VAT number, YY and MMDDhhmm in Israel time', () => {
    // 2008-09-11 10:25 Israel summer time = 07:25Z (the spec example, VAT 002233445)
    expect(productionDirectory('2233445', new Date('2008-09-11T07:25:00Z')).dir).toBe('OPENFRMT/00223344.08/09111025');
    // winter time (UTC+2), just after midnight local: the date is the Israel date
    const p = productionDirectory('123456782', new Date('2025-12-31T22:30:00Z'));
    expect(p).toEqual({ dir: 'OPENFRMT/12345678.26/01010030', date: '2026-01-01', time: '00:30' });
  });
  it('primary ids are 15 digits and differ per run', () => {
    const ids = new Set(Array.from({ length: 50 }, () => newPrimaryId()));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[1-9]\d{14}$/);
  });
});

describe('links between headers and their lines (clarification 11)', () => {
  /** BKMVDATA.TXT of three invoices, its records as text, each record changed by `edit` before it is read. */
  function readEdited(edit: (rec: string, i: number) => string) {
    const asm = new BkmvAssembler(VAT, '482915736401827');
    const bytes = Buffer.concat([asm.open(), asm.documents([invoice(1), invoice(2), invoice(3)]), asm.close().bytes]);
    const records = bytes.toString('latin1').split('\r\n').slice(0, -1);
    const reader = new BkmvReader();
    records.forEach((r, i) => reader.pushLine(Buffer.from(`${edit(r, i)}\r\n`, 'latin1')));
    return reader.finish().issues.map((x) => x.problem);
  }
  const withLink = (rec: string, from: number, link: string) => rec.slice(0, from - 1) + link + rec.slice(from - 1 + 7);

  it('reads the untouched file clean', () => expect(readEdited((r) => r)).toEqual([]));
  it('reports a link used by two headers, and lines tied to a header of another document', () => {
    // Records: 1 A100, 2 C100 (link 1), 3–4 its D110s, 5 C100 (link 2), 6–7, 8 C100 (link 3), 9–10, 11 Z900.
    const issues = readEdited((r, i) => (i === 4 ? withLink(r, 425, '0000001') : i === 8 ? withLink(r, 305, '0000001') : r));
    expect(issues).toContain('link 1 is used by two headers');
    expect(issues.filter((p) => p.startsWith('line links to'))).toEqual([
      'line links to 2, which is not a header of this document',
      'line links to 2, which is not a header of this document',
      'line links to 1, which is not a header of this document',
    ]);
  });
  it('ties lines to headers whatever the link numbers (large, out of order)', () => {
    const links = ['9999999', '0000005', '4000000'];
    const doc = (i: number) => (i < 4 ? 0 : i < 7 ? 1 : 2);
    const issues = readEdited((r, i) => (i === 0 || i === 10 ? r : r.startsWith('C100') ? withLink(r, 425, links[doc(i)]) : withLink(r, 305, links[doc(i)])));
    expect(issues).toEqual([]);
  });
});
