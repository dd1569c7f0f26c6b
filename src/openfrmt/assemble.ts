/**
 * Assembles the two files from format-level inputs: running record numbers, the C100 → D110 → D120
 * order per document, the shared primary id, counts for INI.TXT, the production directory name.
 * Pure: callers feed documents in chunks and write the returned bytes wherever they like.
 */
import { randomInt } from 'node:crypto';
import { israelDateTime } from '../platform/israel-time.ts';
import { encodeIso88598 } from './charset.ts';
import { b110, writeB100, type B100Input, type B110Input } from './ledger-records.ts';
import { RecordOut } from './out.ts';
import {
  a000,
  a100,
  writeC100,
  summaryLine,
  z900,
  CRLF,
  RECORD_LENGTHS,
  SUMMARISED_TYPES,
  type A000Input,
  type C100Input,
  type DocumentRef,
  type SummarisedType,
} from './records.ts';
import { writeD110, writeD120, type D110Input, type D120Input } from './line-records.ts';

type Head = 'recordNo' | 'vatId';

/** A document as the export sees it (amounts in agorot, positive; see C100Input for the meaning). */
export interface ExportDocument {
  header: Omit<C100Input, Head | 'linkNo' | 'docType' | 'docNumber' | 'docDate'>;
  docType: number;
  docNumber: string;
  docDate: string;
  lines: Omit<D110Input, Head | 'linkNo' | 'docType' | 'docNumber' | 'docDate' | 'lineNo'>[];
  payments: Omit<D120Input, Head | 'linkNo' | 'docType' | 'docNumber' | 'docDate' | 'lineNo'>[];
}

/** A random 15-digit primary id (clarification 2): new per run, never starting with 0. */
export function newPrimaryId(): string {
  return String(randomInt(1, 10)) + String(randomInt(0, 1e7)).padStart(7, '0') + String(randomInt(0, 1e7)).padStart(7, '0');
}

/**
 * `<first 8 digits of the 9-digit VAT number>.<YY>` and `MMDDhhmm` of the production time,
 * both from the Israel wall-clock time of the same instant (reference §1.2).
 */
export function productionDirectory(vatId: string, at: Date): { dir: string; date: string; time: string } {
  const { date, time } = israelDateTime(at);
  const vat9 = vatId.padStart(9, '0');
  const stamp = date.slice(5, 7) + date.slice(8, 10) + time.slice(0, 2) + time.slice(3, 5);
  return { dir: `OPENFRMT/${vat9.slice(0, 8)}.${date.slice(2, 4)}/${stamp}`, date, time };
}

/** The most bytes one record takes, CR LF included. */
const C100_MAX = RECORD_LENGTHS.C100 + 2;
const D110_MAX = RECORD_LENGTHS.D110 + 2;
const D120_MAX = RECORD_LENGTHS.D120 + 2;
const B100_MAX = RECORD_LENGTHS.B100 + 2;

export class BkmvAssembler {
  private next = 1;
  private link = 0;
  readonly counts: Record<SummarisedType, number> = { B100: 0, B110: 0, C100: 0, D110: 0, D120: 0, M100: 0 };

  constructor(
    private readonly vatId: string,
    readonly primaryId: string,
  ) {}

  private head() {
    return { recordNo: this.next++, vatId: this.vatId };
  }

  private bytes(records: string[]): Buffer {
    return records.length ? encodeIso88598(records.join(CRLF) + CRLF) : Buffer.alloc(0);
  }

  /** The A100 opening record; call once, first. */
  open(): Buffer {
    if (this.next !== 1) throw new Error('A100 must be the first record');
    return this.bytes([a100({ ...this.head(), primaryId: this.primaryId })]);
  }

  /** One document: its C100, then a D110 per line, then a D120 per payment, tied by a link number. */
  document(doc: ExportDocument): Buffer {
    return this.documents([doc]);
  }

  /** Several documents in order, as one Buffer: their records written straight into it (out.ts), no text in between. */
  documents(docs: ExportDocument[]): Buffer {
    let max = 0;
    for (const doc of docs) max += C100_MAX + doc.lines.length * D110_MAX + doc.payments.length * D120_MAX;
    const o = new RecordOut(max);
    for (const doc of docs) this.documentRecords(doc, o);
    return o.bytes();
  }

  /** Reused for every record: where it stands and which document it belongs to (no object per record). */
  private ref: DocumentRef = { recordNo: 0, vatId: '', docType: 0, docNumber: '', docDate: '', linkNo: 0, lineNo: 0 };

  private documentRecords(doc: ExportDocument, o: RecordOut): void {
    const r = this.ref;
    r.vatId = this.vatId;
    r.docType = doc.docType;
    r.docNumber = doc.docNumber;
    r.docDate = doc.docDate;
    r.linkNo = ++this.link;
    r.lineNo = 0;
    r.recordNo = this.next++;
    writeC100(o, doc.header, r);
    this.counts.C100++;
    for (let i = 0; i < doc.lines.length; i++) {
      r.recordNo = this.next++;
      r.lineNo = i + 1;
      writeD110(o, doc.lines[i], r);
      this.counts.D110++;
    }
    for (let i = 0; i < doc.payments.length; i++) {
      r.recordNo = this.next++;
      r.lineNo = i + 1;
      writeD120(o, doc.payments[i], r);
      this.counts.D120++;
    }
  }

  /** B110 records: the ledger's accounts (double-entry books only). */
  accounts(accounts: Omit<B110Input, Head>[]): Buffer {
    const out = accounts.map((a) => b110({ ...a, ...this.head() }));
    this.counts.B110 += accounts.length;
    return this.bytes(out);
  }

  /** B100 records: journal lines, in entry order, written straight into one Buffer. */
  journal(lines: Omit<B100Input, Head>[]): Buffer {
    const o = new RecordOut(lines.length * B100_MAX);
    const head = { recordNo: 0, vatId: this.vatId };
    for (const l of lines) {
      head.recordNo = this.next++;
      writeB100(o, l, head);
      this.counts.B100++;
    }
    return o.bytes();
  }

  /** The Z900 closing record; answers it with the total number of records (A100 and Z900 included). */
  close(): { bytes: Buffer; totalRecords: number } {
    const head = this.head();
    const totalRecords = head.recordNo;
    return { bytes: this.bytes([z900({ ...head, primaryId: this.primaryId, totalRecords })]), totalRecords };
  }
}

/**
 * INI.TXT: A000 then one summary line per record type present, in the §2.5 order. Types with no
 * records get no line (the spec says "for each record type that exists in BKMVDATA.TXT").
 */
export function iniFile(a: A000Input, counts: Record<SummarisedType, number>): Buffer {
  const lines = [a000(a)];
  for (const code of SUMMARISED_TYPES) if (counts[code] > 0) lines.push(summaryLine(code, counts[code]));
  return encodeIso88598(lines.join(CRLF) + CRLF);
}
