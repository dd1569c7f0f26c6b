/**
 * Verification of a run: the zip that will be handed out is unzipped (streaming, from its file), both files go
 * through the independent reader, every document's values as read back are hashed in file order
 * and compared with the hash of the values the exporter wrote, and counts and totals per doc type
 * are compared with an SQL aggregate over the same fixed set of documents.
 *
 * What it shares with the writer, and what it keeps apart on purpose:
 *  - the reading is its own: the reader (openfrmt/reader.ts, record-parse.ts) parses fields by the layouts'
 *    positions and pictures without calling a writer, so a field written at the wrong place, with the wrong
 *    sign or width, reads back as a different value and the digests differ;
 *  - the rules of the books are shared, not copied: a quantity's ten-thousandths (platform/money.ts, the rounding
 *    decisions.md gives every figure), C100's amounts and signs (c100Amounts), a line's discount and a payment's
 *    method code are the writer's own functions. The digest checks that what was written is what the writer meant
 *    and that it survives the file; a second copy of a rule would only be a second place to get it wrong, and the
 *    rules themselves are held to the specification by test/verifier/, which shares no code with src/ at all
 *    (its own rounding, Israel clock and layouts) and recomputes every value from the API's documents;
 *  - a document's date is written here as the file carries it (`YYYYMMDD`, the ISO date without its dashes),
 *    its own two-line copy of the picture rather than the writer's date8.
 */
import { createHash, type Hash } from 'node:crypto';
import { ledgerOk, type LedgerCheck, type LedgerVerification } from './ledger-check.ts';
import type { TrialBalanceRow } from '../ledger/index.ts';
import {
  BkmvReader,
  CrlfSplitter,
  readIni,
  signedValue,
  type BkmvSummary,
  type RecordFields,
  type Issue,
  alpha,
  c100Amounts,
  lineDiscountAmount,
  paymentMethodCode,
  type ExportDocument,
} from '../openfrmt/index.ts';
import { quantityTenThousandths } from '../platform/money.ts';

/** Hashes documents one line each: header values, then its lines and payments, in file order. */
class DocumentDigest {
  private hash: Hash = createHash('sha256');
  private current: string | null = null;
  count = 0;
  header(type: number, num: string, date: string, amounts: (number | string)[]): void {
    this.flush();
    this.current = `${type}|${num}|${date}|${amounts.join(',')}`;
    this.count++;
  }
  line(values: number[]): void {
    this.current += `;L${values.join(',')}`;
  }
  payment(values: number[]): void {
    this.current += `;P${values.join(',')}`;
  }
  private flush(): void {
    if (this.current !== null) this.hash.update(this.current + '\n');
    this.current = null;
  }
  digest(): string {
    this.flush();
    return this.hash.digest('hex');
  }
}

/** The exporter's side: the source values of every document it wrote. */
export class SourceDigest {
  private d = new DocumentDigest();
  /** M100 records the exporter wrote: none (the service keeps no inventory; none are made up from lines). */
  items = 0;
  add(doc: ExportDocument): void {
    const h = doc.header;
    this.d.header(doc.docType, doc.docNumber, doc.docDate.replace(/-/g, ''), [...c100Amounts(h), alpha(h.partyKey, 15).trimEnd()]);
    for (const l of doc.lines) this.d.line([quantityTenThousandths(l.quantity), l.unitPriceExVat, lineDiscountAmount(l), l.lineTotal]);
    for (const p of doc.payments) this.d.payment([paymentMethodCode(p.method), p.amount]);
  }
  get count(): number {
    return this.d.count;
  }
  digest(): string {
    return this.d.digest();
  }
  /** Count, digest and items, once every document has been added (the digest closes the hash). */
  figures(): SourceFigures {
    return { count: this.count, digest: this.digest(), items: this.items };
  }
}

/** The reader's side: the same values, from the parsed fields. */
function fileDigest(): { onRecord: (code: string, f: RecordFields) => void; result: () => { count: number; digest: string } } {
  const d = new DocumentDigest();
  return {
    onRecord(code, f) {
      if (code === 'C100') {
        d.header(Number(f.get(1203)), f.get(1204).trimEnd(), f.get(1230), [
          ...[1219, 1220, 1221, 1222, 1223, 1224].map((id) => signedValue(f.get(id))),
          f.get(1225).trimEnd(),
        ]);
      } else if (code === 'D110') d.line([signedValue(f.get(1264)), signedValue(f.get(1265)), signedValue(f.get(1266)), signedValue(f.get(1267))]);
      else if (code === 'D120') d.payment([Number(f.get(1306)), signedValue(f.get(1312))]);
    },
    result: () => ({ count: d.count, digest: d.digest() }),
  };
}

export interface DocTypeCheck {
  docType: number;
  file: { count: number; exVat: number; vat: number; incVat: number; withholding: number; lines: number; payments: number; paymentsTotal: number };
  database: { count: number; exVat: number; vat: number; incVat: number; withholding: number; lines: number; payments: number; paymentsTotal: number };
  match: boolean;
}

export interface Verification {
  ok: boolean;
  zipEntries: string[];
  records: number;
  recordCounts: Record<string, number>;
  iniCounts: Record<string, number>;
  documentsRead: number;
  documentsWritten: number;
  /** Every document re-parses to the values it was written from (hash over all of them, in order). */
  documentsMatchSource: boolean;
  byDocType: DocTypeCheck[];
  /** B100/B110 of a double-entry business (null: single-entry, no ledger in the file). */
  ledger?: LedgerVerification | null;
  issueCount: number;
  issues: Issue[];
}

const ZERO = { count: 0, exVat: 0, vat: 0, incVat: 0, withholding: 0, lines: 0, payments: 0, paymentsTotal: 0 };

/** What the zip held: its entry names, INI.TXT's bytes, whether BKMVDATA.TXT was there, problems of the zip itself. */
interface Unzipped {
  entries: string[];
  ini: Buffer;
  sawBkmv: boolean;
  /** CRC-32 or sizes that differ from the zip's records, a central directory that differs from the entries read. */
  zipProblems?: string[];
}

/**
 * The reading side of a verification, fed each entry's bytes as they are unzipped (from the finished file
 * through its central directory, or from the file while it is written, zip-stream.ts): INI.TXT kept, BKMVDATA.TXT
 * line by line through the independent reader, B100/B110 into a LedgerCheck when asked.
 */
export class ZipReadBack {
  private splitter = new CrlfSplitter();
  private entries: string[] = [];
  private iniChunks: Buffer[] = [];
  private sawBkmv = false;
  private digest = fileDigest();
  private reader: BkmvReader;

  constructor(
    private readonly expectedDir: string,
    private readonly ledger: LedgerCheck | null,
  ) {
    this.reader = new BkmvReader((code, f) => {
      this.digest.onRecord(code, f);
      ledger?.onRecord(code, f);
    });
  }

  /** An entry begins: answers where its bytes go. */
  entry(name: string): (chunk: Buffer) => void {
    this.entries.push(name);
    if (name === `${this.expectedDir}/BKMVDATA.TXT`) {
      this.sawBkmv = true;
      return (chunk) => {
        for (const line of this.splitter.push(chunk)) this.reader.pushLine(line);
      };
    }
    if (name === `${this.expectedDir}/INI.TXT`) return (chunk) => this.iniChunks.push(Buffer.from(chunk));
    return () => {};
  }

  /** Every entry read: what was found, the ledger judged against the books (double entry). */
  finish(zipProblems: string[], books: { before: TrialBalanceRow[]; at: TrialBalanceRow[] } | null): ReadBack {
    const rest = this.splitter.end();
    if (rest.length) this.reader.pushLine(rest);
    return {
      expectedDir: this.expectedDir,
      unzipped: { entries: this.entries, ini: Buffer.concat(this.iniChunks), sawBkmv: this.sawBkmv, zipProblems },
      summary: this.reader.finish(),
      read: this.digest.result(),
      ledger: this.ledger && books ? this.ledger.result(books) : null,
    };
  }
}

/** What the exporter wrote, as verification compares it: the documents' digest and count, the M100 items. */
export interface SourceFigures {
  count: number;
  digest: string;
  items: number;
}

/** Problems of the zip itself: a missing entry, a damaged one, M100 records the exporter did not write. */
function zipProblemsOf(z: Unzipped, expectedDir: string, summary: BkmvSummary, source: SourceFigures): Issue[] {
  const problems: Issue[] = (z.zipProblems ?? []).map((problem) => ({ file: problem.includes('INI.TXT') ? 'INI.TXT' : 'BKMVDATA.TXT', line: 0, problem }));
  if (!z.sawBkmv) problems.push({ file: 'BKMVDATA.TXT', line: 0, problem: `${expectedDir}/BKMVDATA.TXT is missing from the zip` });
  if (!z.entries.includes(`${expectedDir}/INI.TXT`)) problems.push({ file: 'INI.TXT', line: 0, problem: `${expectedDir}/INI.TXT is missing from the zip` });
  const m100 = summary.recordCounts.M100 ?? 0;
  if (m100 !== source.items) problems.push({ file: 'BKMVDATA.TXT', line: 0, problem: `${m100} M100 records, the exporter wrote ${source.items} items` });
  return problems;
}

/** Counts and totals per doc type, as read from the file and as the database has them. */
function compareByDocType(summary: BkmvSummary, database: Map<number, DocTypeCheck['database']>): DocTypeCheck[] {
  const types = new Set([...database.keys(), ...summary.byDocType.map((t) => t.docType)]);
  return [...types]
    .sort((a, b) => a - b)
    .map((docType) => {
      const t = summary.byDocType.find((x) => x.docType === docType);
      const file = t
        ? {
            count: t.count,
            exVat: t.exVat,
            vat: t.vat,
            incVat: t.incVat,
            withholding: t.withholding,
            lines: t.lines,
            payments: t.payments,
            paymentsTotal: t.paymentsTotal,
          }
        : { ...ZERO };
      const db = database.get(docType) ?? { ...ZERO };
      const match = (Object.keys(ZERO) as (keyof typeof ZERO)[]).every((k) => file[k] === db[k]);
      return { docType, file, database: db, match };
    });
}

/** The zip as read back, before it is compared with anything (plain data: it may come from the verifier's thread). */
export interface ReadBack {
  expectedDir: string;
  unzipped: Unzipped;
  summary: BkmvSummary;
  read: { count: number; digest: string };
  /** B100/B110 as read, against the books (null: single entry). */
  ledger: LedgerVerification | null;
}

/** Compares what was read back with the source, the database and (double entry) the books' trial balances. */
export function judge(back: ReadBack, source: SourceFigures, database: Map<number, DocTypeCheck['database']>): Verification {
  const { summary, read, unzipped, ledger: ledgerResult } = back;
  const ini = readIni(unzipped.ini, summary);
  const zipProblems = zipProblemsOf(unzipped, back.expectedDir, summary, source);
  const byDocType = compareByDocType(summary, database);
  const documentsMatchSource = read.count === source.count && read.digest === source.digest;
  const issueCount = summary.issueCount + ini.issues.length + zipProblems.length;
  return {
    ok: issueCount === 0 && documentsMatchSource && byDocType.every((c) => c.match) && (ledgerResult === null || ledgerOk(ledgerResult)),
    ledger: ledgerResult,
    zipEntries: unzipped.entries,
    records: summary.records,
    recordCounts: summary.recordCounts,
    iniCounts: ini.counts,
    documentsRead: read.count,
    documentsWritten: source.count,
    documentsMatchSource,
    byDocType,
    issueCount,
    issues: [...zipProblems, ...ini.issues, ...summary.issues].slice(0, 50),
  };
}
