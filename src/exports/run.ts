/**
 * One OPENFRMT run. The set is fixed at the start (issued up to the start instant, document date in
 * range); documents are read in keyset chunks, each chunk its own short statement (the embedded
 * engine serializes transactions, so no long one may stall the API), written as BKMVDATA.TXT into a
 * temporary zip as they are read (deflated meanwhile), INI.TXT added under the mandated tree, verified by
 * reading that zip back from disk, and stored (a chunk at a time, platform/files.ts) with the run in
 * one final transaction. Neither BKMVDATA.TXT nor the zip is ever held whole in memory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import yazl from 'yazl';
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { recordEvent } from '../platform/outbox.ts';
import { storeFileFromPath, type FileMeta } from '../platform/files.ts';
import { checkDateRange } from '../platform/http/formats.ts';
import { AppError, conflict, unconfigured } from '../platform/errors.ts';
import { textProblemOf } from '../openfrmt/limits.ts';
import type { Services } from '../platform/http/services.ts';
import type { BusinessRecord } from '../businesses/service.ts';
import type { DocumentSnapshot } from '../documents/snapshot.ts';
import { BkmvAssembler, iniFile, newPrimaryId, productionDirectory } from '../openfrmt/assemble.ts';
import { exportDocument } from './map-document.ts';
import { databaseTotals, SourceDigest, verifyZip } from './verify.ts';
import { runReport } from './report.ts';
import { exportAccounts, exportJournal, LedgerCheck } from './ledger.ts';
import { trialBalance } from '../ledger/store.ts';
import { finishRun, startRun, type ExportRunView } from './store.ts';

export const SOFTWARE_NAME = 'pinkas';
export const SOFTWARE_VERSION = '0.1.0';
/** Documents per chunk: one short read each. */
export const EXPORT_CHUNK = 500;

/** Writes to BKMVDATA.TXT in the zip; waits while the deflater is behind, fails if the zip cannot be written. */
async function write(out: ZipOut, bytes: Buffer): Promise<void> {
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

interface ZipOut {
  /** BKMVDATA.TXT as it is produced. */
  bkmv: PassThrough;
  /** Settles when the zip is on disk (rejects when it cannot be written). */
  done: Promise<void>;
  /** Adds INI.TXT (it needs the final counts) after BKMVDATA.TXT and closes the zip. */
  finish(ini: Buffer): Promise<void>;
  abort(): void;
}

/**
 * The zip, written to `zipPath` while BKMVDATA.TXT is produced: yazl deflates it on zlib's thread
 * pool (beside the main thread, which reads and assembles the next documents) and its output goes
 * straight to disk. Neither BKMVDATA.TXT nor the zip is ever whole in memory or a temporary text file.
 */
function openZip(dir: string, mtime: Date, zipPath: string): ZipOut {
  const zip = new yazl.ZipFile();
  const bkmv = new PassThrough({ highWaterMark: 1 << 20 });
  zip.addReadStream(bkmv, `${dir}/BKMVDATA.TXT`, { compress: true, mtime });
  const done = pipeline(zip.outputStream, createWriteStream(zipPath));
  // Observed by write() and finish(); never an unhandled rejection meanwhile.
  done.catch(() => {});
  return {
    bkmv,
    done,
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

/**
 * Why a run failed, in words a caller may read: our own errors say it; a file-system error names
 * its code (a full or read-only disk); a database error its SQLSTATE; anything else stays generic.
 */
export function exportFailureReason(err: unknown): string {
  if (err instanceof AppError) return `the export could not be produced: ${err.message}`;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return `the export could not be produced: its temporary file could not be written or read (${code})`;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return `the export could not be produced: the database failed while it was read (SQLSTATE ${code})`;
  return 'the export could not be produced: an internal error (the server log has it under this run id)';
}

const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

export interface ExportResult {
  exportRun: ExportRunView;
  file: FileMeta;
}

export async function runOpenfrmtExport(
  s: Services,
  database: Database,
  business: BusinessRecord,
  range: { from: string; to: string },
  actor: Actor,
  opts: { chunkSize?: number; /** Chunk size of the stored zip (default CHUNK_SIZE; tests). */ fileChunkSize?: number; afterChunk?: (chunkNo: number) => Promise<void>; /** Told as each step begins (benchmarks). */ onPhase?: (phase: 'read' | 'zip' | 'verify' | 'store') => void } = {},
): Promise<ExportResult> {
  const chunkSize = opts.chunkSize ?? EXPORT_CHUNK;
  checkDateRange(range, 'body');
  // A000/1009 is mandatory: without the maker's VAT number there is no valid INI.TXT (never zeros).
  if (!s.config.exports.makerTaxId) {
    throw unconfigured('OPENFRMT_MAKER_TAX_ID is not set: the OPENFRMT export needs the software maker\'s VAT number (A000 field 1009)');
  }
  // A business saved before its name and address were held to A000/1018–1019 could still carry
  // more: refuse rather than write a cut name into the file.
  for (const [value, field, label] of [[business.name, 'businessName', 'name'], [business.address, 'businessStreet', 'address']] as const) {
    const problem = value ? textProblemOf(value, field) : null;
    if (problem) throw conflict(`the business ${label} ${problem}: shorten it (PATCH /v1/businesses/${business.id}) before exporting`);
  }
  const db = database.db;
  const cutOff = s.clock.now();
  const vatId = business.taxId.padStart(9, '0');
  const run = await db.transaction((tx) =>
    startRun(tx, {
      businessId: business.id, from: range.from, to: range.to, cutOff, primaryId: newPrimaryId(), keyId: actor.keyId,
      directoryOf: (at) => productionDirectory(vatId, at).dir,
    }),
  );
  const production = productionDirectory(vatId, run.production);
  const work = await mkdtemp(path.join(tmpdir(), 'pinkas-openfrmt-'));
  let out: ZipOut | null = null;
  try {
    opts.onPhase?.('read');
    const zipPath = path.join(work, 'export.zip');
    // A failed write (disk full) must fail the run, not crash the process or hang on 'drain'.
    out = openZip(production.dir, zipTime(production), zipPath);
    const asm = new BkmvAssembler(vatId, run.primaryId);
    const source = new SourceDigest();
    await write(out, asm.open());
    type Row = { snapshot: unknown; day: string; doc_type: number; doc_number: number };
    // Ordered by the table's columns (index documents_export_order), so LIMIT stops early.
    const chunkAfter = (after: Row | null): Promise<Row[]> =>
      query<Row>(
        db,
        sql`SELECT d.snapshot, d.document_date::text AS day, d.doc_type, d.doc_number FROM documents d
            WHERE d.business_id = ${business.id} AND d.status = 'issued'
              AND d.document_date BETWEEN ${range.from} AND ${range.to} AND d.issued_at <= ${cutOff.toISOString()}
              ${after ? sql`AND (d.document_date, d.doc_type, d.doc_number) > (${after.day.slice(0, 10)}::date, ${Number(after.doc_type)}, ${Number(after.doc_number)})` : sql``}
            ORDER BY d.document_date, d.doc_type, d.doc_number LIMIT ${chunkSize}`,
      );
    let chunkNo = 0;
    let next: Promise<Row[]> | null = chunkAfter(null);
    while (next) {
      const rows: Row[] = await next;
      // The next chunk is read while this one is written (one chunk ahead: memory stays two chunks).
      next = rows.length < chunkSize ? null : chunkAfter(rows[rows.length - 1]);
      // A failed read-ahead is awaited (and thrown) by the next turn; never left unhandled meanwhile.
      next?.catch(() => {});
      for (const r of rows) {
        const snap = (typeof r.snapshot === 'string' ? JSON.parse(r.snapshot) : r.snapshot) as DocumentSnapshot;
        const doc = exportDocument(snap);
        source.add(doc);
        await write(out, asm.document(doc));
      }
      await opts.afterChunk?.(++chunkNo);
    }
    // The ledger of a double-entry business: B110 accounts, then B100 journal lines (src/exports/ledger.ts).
    const doubleEntry = business.bookkeeping === 'double';
    if (doubleEntry) {
      await write(out, asm.accounts((await exportAccounts(db, business.id, range, cutOff)).records));
      // One chunk read ahead while the previous one is formatted (as the documents are).
      const journal = exportJournal(db, business.id, range, cutOff);
      let ahead = journal.next();
      for (;;) {
        const chunk = await ahead;
        if (chunk.done) break;
        ahead = journal.next();
        ahead.catch(() => {});
        await write(out, asm.journal(chunk.value));
      }
    }
    // No M100: the service keeps no inventory (see map-document.ts); source.items stays 0.
    const closing = asm.close();
    await write(out, closing.bytes);

    const ini = iniFile(
      {
        totalRecords: closing.totalRecords, vatId, primaryId: run.primaryId, softwareRegNo: s.config.exports.softwareRegNo,
        softwareName: SOFTWARE_NAME, softwareVersion: SOFTWARE_VERSION, makerVatId: s.config.exports.makerTaxId,
        makerName: s.config.exports.makerName, softwareType: 2, savePath: production.dir.replace(/\//g, '\\'),
        // Double-entry books: 1013 = 2 and 1014 = 1 (balanced per entry); otherwise no ledger in the file.
        bookkeepingType: doubleEntry ? 2 : 0, balanceLevel: doubleEntry ? 1 : 0, companyRegNo: business.dealerType === 'company' ? vatId : null,
        businessName: business.name, street: business.address, rangeFrom: range.from, rangeTo: range.to,
        processDate: production.date, processTime: production.time, languageCode: 0, charset: 1, compressor: 'zip',
        currency: 'ILS', hasBranches: 0,
      },
      asm.counts,
    );
    opts.onPhase?.('zip');
    await out.finish(ini);
    opts.onPhase?.('verify');
    const totals = await databaseTotals(db, business.id, range.from, range.to, cutOff);
    const books = async () => ({
      before: (await trialBalance(db, business.id, dayBefore(range.from), cutOff)).accounts,
      at: (await trialBalance(db, business.id, range.to, cutOff)).accounts,
    });
    const verification = await verifyZip(zipPath, production.dir, source, totals, doubleEntry ? { check: new LedgerCheck(), books } : null);
    const recordCounts = { A100: 1, ...Object.fromEntries(Object.entries(asm.counts).filter(([, n]) => n > 0)), Z900: 1, total: closing.totalRecords };
    const report = runReport({
      vatId, businessName: business.name, directory: production.dir, from: range.from, to: range.to,
      summary: { recordCounts: verification.recordCounts, byDocType: verification.byDocType.map((c) => ({ docType: c.docType, ...c.file })) },
      softwareName: SOFTWARE_NAME, registrationNumber: s.config.exports.softwareRegNo || '00000000', production, ok: verification.ok,
    });
    const status = verification.ok ? 'completed' : 'failed';
    const at = s.clock.now();
    const name = `OPENFRMT-${vatId.slice(0, 8)}-${production.dir.slice(-8)}.zip`;
    opts.onPhase?.('store');
    return await db.transaction(async (tx) => {
      // Read from disk a chunk at a time into file_chunks (inline when it fits one chunk).
      const file = await storeFileFromPath(tx, at, { businessId: business.id, path: zipPath, mime: 'application/zip', name, chunkSize: opts.fileChunkSize });
      const exportRun = await finishRun(tx, at, run.id, { status, recordCounts, fileId: file.id, verification, report, error: verification.ok ? null : 'verification failed' });
      await appendAudit(tx, at, actor, {
        businessId: business.id, action: 'export.openfrmt', entityType: 'export_run', entityId: run.id,
        after: { from: range.from, to: range.to, status, fileId: file.id, recordCounts },
      });
      if (status === 'completed') {
        await recordEvent(tx, at, {
          event: 'export.completed', accountId: business.accountId, businessId: business.id,
          data: { exportRunId: run.id, fileId: file.id, recordCount: closing.totalRecords },
        });
      }
      const { existed: _existed, ...meta } = file;
      return { exportRun, file: meta };
    });
  } catch (err) {
    out?.abort();
    // The run must not stay "running" and its failure must not be silent: the run records a reason
    // (never internals), the audit trail says who ran it and why it failed, then the error answers.
    const reason = exportFailureReason(err);
    s.logger.error({ err, exportRunId: run.id, businessId: business.id }, 'OPENFRMT export failed');
    const failedAt = s.clock.now();
    await db
      .transaction(async (tx) => {
        await finishRun(tx, failedAt, run.id, { status: 'failed', recordCounts: null, fileId: null, verification: null, report: null, error: reason });
        await appendAudit(tx, failedAt, actor, {
          businessId: business.id, action: 'export.openfrmt', entityType: 'export_run', entityId: run.id,
          after: { from: range.from, to: range.to, status: 'failed', fileId: null, error: reason },
        });
      })
      .catch((e) => s.logger.error({ err: e, exportRunId: run.id }, 'the failed export run could not be recorded'));
    throw err;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
