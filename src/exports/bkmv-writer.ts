/**
 * BKMVDATA.TXT as it is produced, into the zip: the documents read in keyset chunks (each its own
 * short statement: the embedded engine serializes transactions, so no long one may stall the API),
 * then the ledger of a double-entry business. A chunk of documents is formatted into one Buffer and
 * written at once (one deflate request per chunk, not per record); the zip is deflated on zlib's
 * thread pool beside the main thread and goes straight to disk. Neither BKMVDATA.TXT nor the zip is
 * ever whole in memory or a temporary text file.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import '../platform/zip-crc.ts';
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import { docTypeIn } from '../documents/doc-type-sql.ts';
import type { BkmvAssembler, ExportDocument } from '../openfrmt/index.ts';
import { exportDocument, UNREAD_SNAPSHOT_KEYS, type ExportSnapshot } from './map-document.ts';
import type { SourceDigest } from './verify.ts';
import { exportAccounts, exportJournal } from './ledger.ts';

export interface ZipOut {
  /** BKMVDATA.TXT as it is produced. */
  bkmv: PassThrough;
  /** Settles when the zip is on disk (rejects when it cannot be written). */
  done: Promise<void>;
  /** The zip's file as it is written (its bytesWritten: how much of the zip is on disk). */
  file: WriteStream;
  /** Adds INI.TXT (it needs the final counts) after BKMVDATA.TXT and closes the zip. */
  finish(ini: Buffer): Promise<void>;
  abort(): void;
}

/** Writes to BKMVDATA.TXT in the zip; waits while the deflater is behind, fails if the zip cannot be written. */
export async function write(out: ZipOut, bytes: Buffer): Promise<void> {
  if (bytes.length && !out.bkmv.write(bytes)) await Promise.race([once(out.bkmv, 'drain'), out.done]);
}

/**
 * Zip entry times are DOS local times without a zone, which yazl takes from the Date's local fields:
 * a Date whose local fields are the production's Israel wall clock (`YYYY-MM-DD`, `HH:MM`).
 */
export function zipTime(production: { date: string; time: string }): Date {
  const [y, m, d] = production.date.split('-').map(Number);
  const [hh, mm] = production.time.split(':').map(Number);
  return new Date(y, m - 1, d, hh, mm);
}

/**
 * zlib level of BKMVDATA.TXT. Fixed-width records full of spaces compress well at any level: on 10,200
 * documents of the seeded books (23.6 MB) level 3 takes 67 ms of CPU for 2.07 MB, the default 6 takes
 * 170 ms for 1.83 MB (level 1: 53 ms, 2.34 MB); inflating costs the same. A million documents deflate
 * 2.3 GB, so the default would cost ~10 s more CPU for a zip 13% smaller.
 */
export const BKMV_DEFLATE_LEVEL = 3;

/** The zip, written to `zipPath` while BKMVDATA.TXT is produced (yazl deflates it on zlib's thread pool). */
export function openZip(dir: string, mtime: Date, zipPath: string): ZipOut {
  const zip = new yazl.ZipFile();
  const bkmv = new PassThrough({ highWaterMark: 1 << 20 });
  zip.addReadStream(bkmv, `${dir}/BKMVDATA.TXT`, { compressionLevel: BKMV_DEFLATE_LEVEL, mtime });
  const file = createWriteStream(zipPath);
  const done = pipeline(zip.outputStream, file);
  // Observed by write() and finish(); never an unhandled rejection meanwhile.
  done.catch(() => {});
  return {
    bkmv,
    done,
    file,
    async finish(ini) {
      bkmv.end();
      zip.addBuffer(ini, `${dir}/INI.TXT`, { compress: true, mtime });
      zip.end();
      await done;
    },
    abort() {
      bkmv.destroy();
      (zip.outputStream as unknown as { destroy(): void }).destroy();
    },
  };
}

export interface BkmvSource {
  db: Database['db'];
  businessId: string;
  range: { from: string; to: string };
  cutOff: Date;
  doubleEntry: boolean;
  chunkSize: number;
  afterChunk?: (chunkNo: number) => Promise<void>;
}

/** The types OPENFRMT 1.31 has a code for (doc-types.ts `openfrmt.exported`): a price quote is not written. */
const EXPORTED_TYPES = docTypeIn(sql`d.doc_type`, (r) => r.openfrmt.exported);

type Row = { snapshot: unknown; day: string; doc_type: number; doc_number: number };

/**
 * The snapshot less the keys the export never reads (1,031 bytes of text a document instead of 1,466 on the seeded
 * books), as one text[] literal. Measured on 100,000 of their documents: PostgreSQL's CPU 1.0 s instead of
 * 0.85–0.90 s (removing keys costs it a little), the main thread's reading and parsing of the rows 0.84–0.89 s
 * instead of 1.06–1.22 s. Extracting the keys that are read one by one (`->`, or a json array of them) cost
 * PostgreSQL 2.4 s: snapshots are stored compressed, and each `->` decompresses the whole again.
 */
const UNREAD_KEYS = sql.raw(`'{${UNREAD_SNAPSHOT_KEYS.join(',')}}'::text[]`);

/** One keyset chunk of the fixed set, ordered by the table's columns (index documents_export_order), so LIMIT stops early. */
function documentChunk(src: BkmvSource, after: Row | null): Promise<Row[]> {
  return query<Row>(
    src.db,
    sql`SELECT d.snapshot - ${UNREAD_KEYS} AS snapshot, d.document_date::text AS day, d.doc_type, d.doc_number FROM documents d
        WHERE d.business_id = ${src.businessId} AND d.status = 'issued' AND ${EXPORTED_TYPES}
          AND d.document_date BETWEEN ${src.range.from} AND ${src.range.to} AND d.issued_at <= ${src.cutOff.toISOString()}
          ${after ? sql`AND (d.document_date, d.doc_type, d.doc_number) > (${after.day.slice(0, 10)}::date, ${Number(after.doc_type)}, ${Number(after.doc_number)})` : sql``}
        ORDER BY d.document_date, d.doc_type, d.doc_number LIMIT ${src.chunkSize}`,
  );
}

/** The documents: C100 → D110 → D120 each, a chunk formatted into one Buffer while the next chunk is read. */
async function writeDocuments(out: ZipOut, asm: BkmvAssembler, source: SourceDigest, src: BkmvSource): Promise<void> {
  let chunkNo = 0;
  let next: Promise<Row[]> | null = documentChunk(src, null);
  while (next) {
    const rows: Row[] = await next;
    // The next chunk is read while this one is written (one chunk ahead: memory stays two chunks).
    next = rows.length < src.chunkSize ? null : documentChunk(src, rows[rows.length - 1]);
    // A failed read-ahead is awaited (and thrown) by the next turn; never left unhandled meanwhile.
    next?.catch(() => {});
    const docs: ExportDocument[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      const doc = exportDocument((typeof r.snapshot === 'string' ? JSON.parse(r.snapshot) : r.snapshot) as ExportSnapshot);
      source.add(doc);
      docs[i] = doc;
    }
    await write(out, asm.documents(docs));
    await src.afterChunk?.(++chunkNo);
  }
}

/** The ledger of a double-entry business: B110 accounts, then B100 journal lines (src/exports/ledger.ts). */
async function writeLedger(out: ZipOut, asm: BkmvAssembler, src: BkmvSource): Promise<void> {
  await write(out, asm.accounts((await exportAccounts(src.db, src.businessId, src.range, src.cutOff)).records));
  // One chunk read ahead while the previous one is formatted (as the documents are).
  const journal = exportJournal(src.db, src.businessId, { range: src.range, cutOff: src.cutOff, chunk: src.chunkSize });
  let ahead = journal.next();
  for (;;) {
    const chunk = await ahead;
    if (chunk.done) break;
    ahead = journal.next();
    ahead.catch(() => {});
    await write(out, asm.journal(chunk.value));
  }
}

/** All of BKMVDATA.TXT, A100 to Z900; answers the total number of records. */
export async function writeBkmv(out: ZipOut, asm: BkmvAssembler, source: SourceDigest, src: BkmvSource): Promise<number> {
  await write(out, asm.open());
  await writeDocuments(out, asm, source, src);
  if (src.doubleEntry) await writeLedger(out, asm, src);
  // No M100: the service keeps no inventory (see map-document.ts); source.items stays 0.
  const closing = asm.close();
  await write(out, closing.bytes);
  return closing.totalRecords;
}
