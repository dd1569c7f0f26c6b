/**
 * Verification of a run: the zip that will be handed out is unzipped (streaming, from its file), both files go
 * through the independent reader, every document's values as read back are hashed in file order
 * and compared with the hash of the values the exporter wrote, and counts and totals per doc type
 * are compared with an SQL aggregate over the same fixed set of documents.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { ledgerOk, type LedgerCheck, type LedgerVerification } from './ledger.ts';
import type { TrialBalanceRow } from '../ledger/store.ts';
import { Unzip, UnzipInflate } from 'fflate';
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import { BkmvReader, CrlfSplitter, readIni, signedValue, type BkmvSummary, type Fields, type Issue } from '../openfrmt/reader.ts';
import { alpha } from '../openfrmt/fields.ts';
import { c100Amounts, lineDiscountAmount, paymentMethodCode } from '../openfrmt/records.ts';
import type { ExportDocument } from '../openfrmt/assemble.ts';

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
    for (const l of doc.lines) this.d.line([Math.round(Math.abs(l.quantity) * 10000) * Math.sign(l.quantity || 1), l.unitPriceExVat, lineDiscountAmount(l), l.lineTotal]);
    for (const p of doc.payments) this.d.payment([paymentMethodCode(p.method), p.amount]);
  }
  get count(): number {
    return this.d.count;
  }
  digest(): string {
    return this.d.digest();
  }
}

/** The reader's side: the same values, from the parsed fields. */
function fileDigest(): { onRecord: (code: string, f: Fields) => void; result: () => { count: number; digest: string } } {
  const d = new DocumentDigest();
  return {
    onRecord(code, f) {
      if (code === 'C100') {
        d.header(Number(f[1203]), f[1204].trimEnd(), f[1230], [...[1219, 1220, 1221, 1222, 1223, 1224].map((id) => signedValue(f[id])), f[1225].trimEnd()]);
      } else if (code === 'D110') d.line([signedValue(f[1264]), signedValue(f[1265]), signedValue(f[1266]), signedValue(f[1267])]);
      else if (code === 'D120') d.payment([Number(f[1306]), signedValue(f[1312])]);
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

/** The database's own figures for the fixed set (same filter as the export, amounts per the C100 conventions). */
export async function databaseTotals(ex: Executor, businessId: string, from: string, to: string, cutOff: Date): Promise<Map<number, DocTypeCheck['database']>> {
  const rows = await query<Record<string, number>>(
    ex,
    // Shekel figures: a foreign-currency document's frozen `ils` totals (docs/currency.md), its
    // payments adding up to what they settle; a shekel document's own columns.
    sql`WITH d AS (
          SELECT doc_type, snapshot,
                 CASE WHEN currency = 'ILS' THEN total_ex_vat ELSE (snapshot->'ils'->>'totalExVat')::bigint END AS total_ex_vat,
                 CASE WHEN currency = 'ILS' THEN vat_amount ELSE (snapshot->'ils'->>'vatAmount')::bigint END AS vat_amount,
                 CASE WHEN currency = 'ILS' THEN total_inc_vat ELSE (snapshot->'ils'->>'totalIncVat')::bigint END AS total_inc_vat,
                 CASE WHEN currency = 'ILS' THEN withholding_amount ELSE (snapshot->'ils'->>'withholdingAmount')::bigint END AS withholding_amount,
                 currency
            FROM documents
           WHERE business_id = ${businessId} AND status = 'issued'
             AND document_date BETWEEN ${from} AND ${to} AND issued_at <= ${cutOff.toISOString()})
        SELECT d.doc_type,
          count(*) AS count,
          sum(CASE WHEN d.doc_type = 400 THEN d.total_inc_vat WHEN d.doc_type = 330 THEN abs(d.total_ex_vat) ELSE d.total_ex_vat END) AS ex_vat,
          sum(CASE WHEN d.doc_type = 400 THEN 0 WHEN d.doc_type = 330 THEN abs(d.vat_amount) ELSE d.vat_amount END) AS vat,
          sum(CASE WHEN d.doc_type = 330 THEN abs(d.total_inc_vat) ELSE d.total_inc_vat END) AS inc_vat,
          sum(CASE WHEN d.doc_type IN (320, 400) THEN d.withholding_amount ELSE 0 END) AS withholding,
          sum(CASE WHEN d.doc_type IN (305, 320, 330) THEN jsonb_array_length(d.snapshot->'lines') ELSE 0 END) AS lines,
          sum(CASE WHEN d.doc_type IN (320, 400) THEN jsonb_array_length(d.snapshot->'payments') ELSE 0 END) AS payments,
          sum(CASE WHEN d.doc_type NOT IN (320, 400) THEN 0
                   WHEN d.currency <> 'ILS' AND d.doc_type = 320 THEN d.total_inc_vat - d.withholding_amount
                   WHEN d.currency <> 'ILS' THEN d.total_inc_vat
                   ELSE (SELECT coalesce(sum((p->>'amount')::bigint), 0) FROM jsonb_array_elements(d.snapshot->'payments') p)
                   END) AS payments_total
        FROM d
        GROUP BY d.doc_type`,
  );
  return new Map(
    rows.map((r) => [
      Number(r.doc_type),
      {
        count: Number(r.count), exVat: Number(r.ex_vat), vat: Number(r.vat), incVat: Number(r.inc_vat), withholding: Number(r.withholding),
        lines: Number(r.lines), payments: Number(r.payments), paymentsTotal: Number(r.payments_total),
      },
    ]),
  );
}

const ZERO = { count: 0, exVat: 0, vat: 0, incVat: 0, withholding: 0, lines: 0, payments: 0, paymentsTotal: 0 };

/**
 * Unzips the zip at `zipPath` as it is read from disk (a MiB at a time: neither the zip nor its
 * BKMVDATA.TXT is ever whole in memory), reads INI.TXT and BKMVDATA.TXT back and compares them with
 * the source and the database.
 */
export async function verifyZip(
  zipPath: string,
  expectedDir: string,
  source: SourceDigest,
  database: Map<number, DocTypeCheck['database']>,
  /** A double-entry business: B100/B110 checked as read, against the books' trial balances. */
  ledger: { check: LedgerCheck; books: () => Promise<{ before: TrialBalanceRow[]; at: TrialBalanceRow[] }> } | null = null,
): Promise<Verification> {
  const digest = fileDigest();
  const reader = new BkmvReader((code, f) => {
    digest.onRecord(code, f);
    ledger?.check.onRecord(code, f);
  });
  const splitter = new CrlfSplitter();
  const entries: string[] = [];
  const iniChunks: Buffer[] = [];
  let sawBkmv = false;
  const unzip = new Unzip((file) => {
    entries.push(file.name);
    const isBkmv = file.name === `${expectedDir}/BKMVDATA.TXT`;
    const isIni = file.name === `${expectedDir}/INI.TXT`;
    if (isBkmv) sawBkmv = true;
    file.ondata = (err, chunk) => {
      if (err) throw err;
      if (isBkmv) for (const line of splitter.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))) reader.pushLine(line);
      else if (isIni) iniChunks.push(Buffer.from(chunk));
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  for await (const piece of createReadStream(zipPath, { highWaterMark: 1 << 20 })) unzip.push(piece as Buffer, false);
  unzip.push(new Uint8Array(0), true);
  const rest = splitter.end();
  if (rest.length) reader.pushLine(rest);
  const summary: BkmvSummary = reader.finish();
  const ini = readIni(Buffer.concat(iniChunks), summary);
  const issues = [...ini.issues, ...summary.issues];
  const zipProblems: Issue[] = [];
  if (!sawBkmv) zipProblems.push({ file: 'BKMVDATA.TXT', line: 0, problem: `${expectedDir}/BKMVDATA.TXT is missing from the zip` });
  if (!entries.includes(`${expectedDir}/INI.TXT`)) zipProblems.push({ file: 'INI.TXT', line: 0, problem: `${expectedDir}/INI.TXT is missing from the zip` });
  const m100 = summary.recordCounts.M100 ?? 0;
  if (m100 !== source.items) zipProblems.push({ file: 'BKMVDATA.TXT', line: 0, problem: `${m100} M100 records, the exporter wrote ${source.items} items` });
  const read = digest.result();
  const types = new Set([...database.keys(), ...summary.byDocType.map((t) => t.docType)]);
  const byDocType = [...types].sort((a, b) => a - b).map((docType) => {
    const t = summary.byDocType.find((x) => x.docType === docType);
    const file = t
      ? { count: t.count, exVat: t.exVat, vat: t.vat, incVat: t.incVat, withholding: t.withholding, lines: t.lines, payments: t.payments, paymentsTotal: t.paymentsTotal }
      : { ...ZERO };
    const db = database.get(docType) ?? { ...ZERO };
    const match = (Object.keys(ZERO) as (keyof typeof ZERO)[]).every((k) => file[k] === db[k]);
    return { docType, file, database: db, match };
  });
  const documentsMatchSource = read.count === source.count && read.digest === source.digest();
  const issueCount = summary.issueCount + ini.issues.length + zipProblems.length;
  const ledgerResult = ledger ? ledger.check.result(await ledger.books()) : null;
  return {
    ok: issueCount === 0 && documentsMatchSource && byDocType.every((c) => c.match) && (ledgerResult === null || ledgerOk(ledgerResult)),
    ledger: ledgerResult,
    zipEntries: entries,
    records: summary.records,
    recordCounts: summary.recordCounts,
    iniCounts: ini.counts,
    documentsRead: read.count,
    documentsWritten: source.count,
    documentsMatchSource,
    byDocType,
    issueCount,
    issues: [...zipProblems, ...issues].slice(0, 50),
  };
}
