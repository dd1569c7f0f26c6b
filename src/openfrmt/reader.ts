/**
 * An independent reader of INI.TXT / BKMVDATA.TXT: it decodes the bytes (iconv-lite, not the
 * writer's encoder), cuts fields by the positions in layouts.ts, checks every record length,
 * picture and mandatory field, the file structure (A100 … Z900, running numbers, the shared primary
 * id, totals, INI counts), and sums documents per type. It streams: BKMVDATA is fed chunk by chunk.
 */
import { LAYOUTS, DATA_CODES } from './layouts.ts';
import { CrlfSplitter, decodeRecord, parseRecord, readRecord, signedValue, type Fields, type RecordFields } from './record-parse.ts';

export interface Issue {
  file: 'INI.TXT' | 'BKMVDATA.TXT';
  line: number;
  field?: number;
  problem: string;
}

export interface DocTypeTotals {
  docType: number;
  count: number;
  cancelled: number;
  /** Σ 1221, 1222, 1223, 1224 (agorot). */
  exVat: number;
  vat: number;
  incVat: number;
  withholding: number;
  lines: number;
  /** Σ D110/1267. */
  linesTotal: number;
  payments: number;
  /** Σ D120/1312. */
  paymentsTotal: number;
}

export interface BkmvSummary {
  records: number;
  recordCounts: Record<string, number>;
  primaryId: string | null;
  vatId: string | null;
  byDocType: DocTypeTotals[];
  issues: Issue[];
  issueCount: number;
}

const MAX_KEPT_ISSUES = 200;
const SYSTEM_CONSTANT = '&OF1.31&';

/** Accumulates the checks over BKMVDATA.TXT, one line (with its line ending) at a time. */
export class BkmvReader {
  private lineNo = 0;
  private counts: Record<string, number> = {};
  private primaryId: string | null = null;
  private vatId: string | null = null;
  private sawZ900 = false;
  private z900Total: number | null = null;
  private byType = new Map<number, DocTypeTotals>();
  /** C100/1234 link → hash of "type|number", to tie lines to their header (clarification 11): a table by link number. */
  private headers = new LinkTable();
  private issues: Issue[] = [];
  private issueCount = 0;
  private itemCodes = new Set<string>();

  /** `onRecord` sees every well-formed record's fields (callers build their own cross-checks). */
  constructor(private readonly onRecord?: (code: string, fields: RecordFields) => void) {}

  private issue(line: number, problem: string, field?: number): void {
    this.issueCount++;
    if (this.issues.length < MAX_KEPT_ISSUES) this.issues.push({ file: 'BKMVDATA.TXT', line, field, problem });
  }

  private totals(docType: number): DocTypeTotals {
    let t = this.byType.get(docType);
    if (!t) {
      t = { docType, count: 0, cancelled: 0, exVat: 0, vat: 0, incVat: 0, withholding: 0, lines: 0, linesTotal: 0, payments: 0, paymentsTotal: 0 };
      this.byType.set(docType, t);
    }
    return t;
  }

  pushLine(raw: Buffer): void {
    const n = ++this.lineNo;
    if (raw.length < 2 || raw[raw.length - 2] !== 0x0d || raw[raw.length - 1] !== 0x0a) this.issue(n, 'record does not end with CR LF');
    const body = raw.subarray(0, raw[raw.length - 2] === 0x0d ? raw.length - 2 : raw.length - 1);
    if (body.includes(0x0d)) this.issue(n, 'bare CR inside a record');
    const { text, badByte } = decodeRecord(body);
    if (badByte !== null) this.issue(n, `byte at column ${badByte} is outside ISO-8859-8 printable text`);
    const code = text.slice(0, 4);
    if (this.sawZ900) this.issue(n, 'record after Z900');
    if (n === 1 && code !== 'A100') this.issue(n, 'the first record must be A100');
    if (n > 1 && code === 'A100') this.issue(n, 'A100 may appear only first');
    if (code !== 'A100' && code !== 'Z900' && !(DATA_CODES as readonly string[]).includes(code)) {
      this.issue(n, `unknown record code "${code}"`);
      return;
    }
    const { fields, problems } = readRecord(code, text);
    if (problems) {
      for (const p of problems) this.issue(n, p.problem, p.field);
      if (problems.some((p) => p.field === undefined)) return;
    }
    this.counts[code] = (this.counts[code] ?? 0) + 1;
    const recordNo = Number(fields.get(firstNumberField(code)));
    if (recordNo !== n) this.issue(n, `running record number ${recordNo}, expected ${n}`, firstNumberField(code));
    const vat = fields.get(firstNumberField(code) + 1);
    if (this.vatId === null) this.vatId = vat;
    else if (vat !== this.vatId) this.issue(n, 'VAT number differs from the A100 one', firstNumberField(code) + 1);
    this.checkRecord(n, code, fields);
    this.onRecord?.(code, fields);
  }

  private checkRecord(n: number, code: string, f: RecordFields): void {
    switch (code) {
      case 'A100':
        this.primaryId = f.get(1103);
        if (f.get(1104) !== SYSTEM_CONSTANT) this.issue(n, 'system constant must be &OF1.31&', 1104);
        break;
      case 'Z900':
        this.checkZ900(n, f);
        break;
      case 'C100':
        this.checkC100(n, f);
        break;
      case 'D110':
        this.checkD110(n, f);
        break;
      case 'D120':
        this.checkD120(n, f);
        break;
      case 'M100':
        if (this.itemCodes.has(f.get(1455))) this.issue(n, `internal item code "${f.get(1455).trimEnd()}" appears twice`, 1455);
        this.itemCodes.add(f.get(1455));
        break;
      case 'B100':
        if (f.get(1366) !== '1' && f.get(1366) !== '2') this.issue(n, 'debit/credit indicator must be 1 or 2', 1366);
        break;
    }
  }

  private checkZ900(n: number, f: RecordFields): void {
    this.sawZ900 = true;
    if (f.get(1153) !== this.primaryId) this.issue(n, 'primary id differs from A100/1103', 1153);
    if (f.get(1154) !== SYSTEM_CONSTANT) this.issue(n, 'system constant must be &OF1.31&', 1154);
    this.z900Total = Number(f.get(1155));
    if (this.z900Total !== n) this.issue(n, `total ${this.z900Total} but the file has ${n} records`, 1155);
  }

  private checkC100(n: number, f: RecordFields): void {
    const type = Number(f.get(1203));
    if (type >= 100 && type <= 710) {
      if (f.get(1207).trim() === '') this.issue(n, 'customer/supplier name is mandatory for types 100-710', 1207);
      if (f.get(1225).trim() === '') this.issue(n, 'customer/supplier key is mandatory for types 100-710', 1225);
    }
    if (f.get(1228) !== ' ' && f.get(1228) !== '1') this.issue(n, 'cancelled flag must be "1" or blank', 1228);
    const t = this.totals(type);
    t.count++;
    if (f.get(1228) === '1') t.cancelled++;
    t.exVat += signedValue(f.get(1221));
    t.vat += signedValue(f.get(1222));
    t.incVat += signedValue(f.get(1223));
    t.withholding += signedValue(f.get(1224));
    this.checkSigns(n, type, f);
    const link = Number(f.get(1234));
    if (link > 0) {
      if (this.headers.has(link)) this.issue(n, `link ${link} is used by two headers`, 1234);
      this.headers.set(link, docKey(type, f.get(1204)));
    }
  }

  /** A D110 or D120 names its document's header by link number (clarification 11); answers the totals of its type. */
  private linkedTotals(n: number, f: RecordFields, { typeF, numF, linkF }: { typeF: number; numF: number; linkF: number }): DocTypeTotals {
    const type = Number(f.get(typeF));
    const link = Number(f.get(linkF));
    if (link > 0 && this.headers.get(link) !== docKey(type, f.get(numF))) this.issue(n, `line links to ${link}, which is not a header of this document`, linkF);
    return this.totals(type);
  }

  private checkD110(n: number, f: RecordFields): void {
    const t = this.linkedTotals(n, f, { typeF: 1253, numF: 1254, linkF: 1273 });
    t.lines++;
    t.linesTotal += signedValue(f.get(1267));
    // A line discount reduces the line: the sign opposite to the line total's (clarification 5).
    const lineDiscount = signedValue(f.get(1266));
    if (lineDiscount !== 0 && Math.sign(lineDiscount) === (signedValue(f.get(1267)) < 0 ? -1 : 1))
      this.issue(n, 'a line discount takes the sign opposite to the line total (negative on a standard line)', 1266);
  }

  private checkD120(n: number, f: RecordFields): void {
    const t = this.linkedTotals(n, f, { typeF: 1303, numF: 1304, linkF: 1323 });
    t.payments++;
    t.paymentsTotal += signedValue(f.get(1312));
    const method = Number(f.get(1306));
    if (method < 1 || method > 9) this.issue(n, 'payment method must be 1..9', 1306);
    if (method === 2 && /^0+$/.test(f.get(1310))) this.issue(n, 'a cheque needs its cheque number', 1310);
    const acquirer = Number(f.get(1313));
    if (![0, 1, 2, 3, 4, 6].includes(acquirer)) this.issue(n, 'unknown clearing company code', 1313);
  }

  /**
   * Signs of C100 amounts (spec §2.4(יב), Appendix 1 note, clarifications 1, 4, 5): a standard document
   * is written positive, a negative document (a reversing receipt) negative; the document discount
   * takes the sign opposite to the document's, withholding the document's own sign; a credit note
   * (330) is written positive; a receipt has 1219 = 1221 = 1223 and 1220 = 1222 = 0; 1224 is for
   * receipts only.
   */
  private checkSigns(n: number, type: number, f: RecordFields): void {
    const [before, discount, after, vat, total, withholding] = [1219, 1220, 1221, 1222, 1223, 1224].map((id) => signedValue(f.get(id)));
    const sign = (total !== 0 ? total : before) < 0 ? -1 : 1;
    if (discount !== 0 && Math.sign(discount) === sign)
      this.issue(n, 'a document discount takes the sign opposite to the document (negative in a standard document)', 1220);
    if (withholding !== 0 && Math.sign(withholding) !== sign)
      this.issue(n, "withholding takes the document's own sign (positive in a standard document)", 1224);
    if (type === 330 && [before, after, vat, total].some((v) => v < 0)) this.issue(n, 'a credit note (330) is written with positive amounts', 1223);
    if (withholding !== 0 && ![320, 400, 405].includes(type)) this.issue(n, 'withholding (1224) belongs to receipts only', 1224);
    if (type === 400 || type === 405) {
      if (before !== total || after !== total) this.issue(n, 'a receipt has 1219 = 1221 = 1223 (clarification 4)', 1219);
      if (discount !== 0 || vat !== 0) this.issue(n, 'a receipt has 1220 = 1222 = 0 (clarification 4)', 1222);
    }
  }

  finish(): BkmvSummary {
    if (this.lineNo === 0) this.issue(0, 'BKMVDATA.TXT is empty');
    else if (!this.sawZ900) this.issue(this.lineNo, 'the last record must be Z900');
    return {
      records: this.lineNo,
      recordCounts: { ...this.counts },
      primaryId: this.primaryId,
      vatId: this.vatId,
      byDocType: [...this.byType.values()].sort((a, b) => a.docType - b.docType),
      issues: this.issues,
      issueCount: this.issueCount,
    };
  }
}

/** Israeli tax-id check digit (weights 1,2,1,2… from the left; digit sums; total a multiple of 10), not all zeros. */
function validTaxId(v: string): boolean {
  if (!/^\d{9}$/.test(v) || /^0+$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) {
    const d = Number(v[i]) * (i % 2 ? 2 : 1);
    sum += d > 9 ? d - 9 : d;
  }
  return sum % 10 === 0;
}

/**
 * Link number (1..9,999,999, C100/1234 is 9(7)) → 32-bit hash, in typed arrays indexed by the link and grown to the
 * largest link seen: 5 bytes a link (5 MB for a million documents numbered in order; 50 MB at most), where a Map held
 * ~45 bytes an entry.
 */
const MAX_LINK = 9_999_999;

class LinkTable {
  private hashes = new Int32Array(1024);
  private present = new Uint8Array(1024);
  /** Links a table does not index (a field that failed its picture: a fraction, a huge number). */
  private other = new Map<number, number>();

  private static indexed(link: number): boolean {
    return Number.isInteger(link) && link >= 0 && link <= MAX_LINK;
  }

  has(link: number): boolean {
    if (!LinkTable.indexed(link)) return this.other.has(link);
    return link < this.present.length && this.present[link] === 1;
  }

  get(link: number): number | undefined {
    if (!LinkTable.indexed(link)) return this.other.get(link);
    return link < this.present.length && this.present[link] === 1 ? this.hashes[link] >>> 0 : undefined;
  }

  set(link: number, hash: number): void {
    if (!LinkTable.indexed(link)) {
      this.other.set(link, hash);
      return;
    }
    if (link >= this.present.length) {
      let size = this.present.length;
      while (size <= link) size *= 2;
      const hashes = new Int32Array(size);
      hashes.set(this.hashes);
      const present = new Uint8Array(size);
      present.set(this.present);
      this.hashes = hashes;
      this.present = present;
    }
    this.hashes[link] = hash | 0;
    this.present[link] = 1;
  }
}

/** FNV-1a of "type|number": a compact key for the header map. */
function docKey(type: number, num: string): number {
  let h = 0x811c9dc5;
  const s = `${type}|${num}`;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Field id of the running record number: 1101, 1151, 1201, … (second field of every layout). */
function firstNumberField(code: string): number {
  return LAYOUTS[code].fields[1][0];
}

export interface IniSummary {
  a000: Fields | null;
  counts: Record<string, number>;
  issues: Issue[];
}

/** Reads INI.TXT and checks it against what the reader found in BKMVDATA.TXT. */
export function readIni(bytes: Buffer, bkmv: BkmvSummary): IniSummary {
  const issues: Issue[] = [];
  const add = (line: number, problem: string, field?: number) => issues.push({ file: 'INI.TXT', line, field, problem });
  const splitter = new CrlfSplitter();
  const lines = splitter.push(bytes);
  if (splitter.end().length) add(lines.length + 1, 'bytes after the last CR LF');
  let a000: Fields | null = null;
  const counts: Record<string, number> = {};
  lines.forEach((raw, idx) => {
    const n = idx + 1;
    if (raw.length < 2 || raw[raw.length - 2] !== 0x0d) add(n, 'record does not end with CR LF');
    const { text, badByte } = decodeRecord(raw.subarray(0, raw.length - 2));
    if (badByte !== null) add(n, `byte at column ${badByte} is outside ISO-8859-8 printable text`);
    const layout = n === 1 ? 'A000' : 'SUMMARY';
    if (n === 1 && !text.startsWith('A000')) add(n, 'the first record must be A000');
    const { fields, problems } = parseRecord(layout, text);
    for (const p of problems) add(n, p.problem, p.field);
    if (problems.some((p) => p.field === undefined)) return;
    if (n === 1) {
      a000 = fields;
      return;
    }
    const code = fields[1050];
    if (!(DATA_CODES as readonly string[]).includes(code)) add(n, `summary of unknown record code "${code}"`, 1050);
    if (code in counts) add(n, `second summary line for ${code}`, 1050);
    counts[code] = Number(fields[1051]);
  });
  const head = a000 as Fields | null;
  if (head) {
    if (head[1005] !== SYSTEM_CONSTANT) add(1, 'system constant must be &OF1.31&', 1005);
    if (Number(head[1002]) !== bkmv.records) add(1, `total ${Number(head[1002])} but BKMVDATA.TXT has ${bkmv.records} records`, 1002);
    if (head[1004] !== bkmv.primaryId) add(1, 'primary id differs from BKMVDATA.TXT', 1004);
    if (head[1003] !== bkmv.vatId) add(1, 'VAT number differs from BKMVDATA.TXT', 1003);
    if (head[1011] === '1' && /^0+$/.test(head[1023])) add(1, 'tax year is mandatory for single-year software', 1023);
    if (head[1011] === '2' && (head[1024] === '00000000' || head[1025] === '00000000')) add(1, 'data range is mandatory for multi-year software', 1024);
    if (!['0', '1', '2'].includes(head[1028])) add(1, 'language code must be 0, 1 or 2', 1028);
    if (head[1029] !== '1' && head[1029] !== '2') add(1, 'character set must be 1 or 2', 1029);
    if (!validTaxId(head[1009])) add(1, "the software maker's VAT number must be a valid 9-digit tax id (not zeros)", 1009);
  } else if (lines.length === 0) add(0, 'INI.TXT is empty');
  for (const code of DATA_CODES) {
    const inData = bkmv.recordCounts[code] ?? 0;
    const inIni = counts[code];
    if (inIni === undefined && inData > 0) add(0, `no summary line for ${code} (${inData} records)`);
    if (inIni !== undefined && inIni !== inData) add(0, `summary says ${inIni} ${code} records, BKMVDATA.TXT has ${inData}`);
  }
  return { a000: head, counts, issues };
}
