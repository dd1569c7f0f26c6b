/**
 * One OPENFRMT run. The set is fixed at the start (issued up to the start instant, document date in
 * range); documents are read in keyset chunks, each chunk its own short statement (the embedded
 * engine serializes transactions, so no long one may stall the API), written to a temporary
 * BKMVDATA.TXT, zipped with INI.TXT under the mandated tree, verified by reading the zip back, and
 * stored with the run in one short final transaction.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import yazl from 'yazl';
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { recordEvent } from '../platform/outbox.ts';
import { storeFile, type FileMeta } from '../platform/files.ts';
import { checkDateRange } from '../platform/http/formats.ts';
import { unconfigured } from '../platform/errors.ts';
import type { Services } from '../platform/http/services.ts';
import type { BusinessRecord } from '../businesses/service.ts';
import type { DocumentSnapshot } from '../documents/snapshot.ts';
import { BkmvAssembler, iniFile, newPrimaryId, productionDirectory } from '../openfrmt/assemble.ts';
import { exportDocument } from './map-document.ts';
import { databaseTotals, SourceDigest, verifyZip } from './verify.ts';
import { runReport } from './report.ts';
import { finishRun, startRun, type ExportRunView } from './store.ts';

export const SOFTWARE_NAME = 'pinkas';
export const SOFTWARE_VERSION = '0.1.0';
/** Documents per chunk: one short read each. */
export const EXPORT_CHUNK = 500;

async function write(out: WriteStream, bytes: Buffer): Promise<void> {
  if (out.destroyed) throw new Error('the temporary BKMVDATA.TXT could not be written');
  if (bytes.length && !out.write(bytes)) await once(out, 'drain');
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

function zipTree(dir: string, ini: Buffer, bkmvPath: string, mtime: Date): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(ini, `${dir}/INI.TXT`, { compress: true, mtime });
  zip.addFile(bkmvPath, `${dir}/BKMVDATA.TXT`, { compress: true, mtime });
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

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
  opts: { chunkSize?: number; afterChunk?: (chunkNo: number) => Promise<void> } = {},
): Promise<ExportResult> {
  const chunkSize = opts.chunkSize ?? EXPORT_CHUNK;
  checkDateRange(range, 'body');
  // A000/1009 is mandatory: without the maker's VAT number there is no valid INI.TXT (never zeros).
  if (!s.config.exports.makerTaxId) {
    throw unconfigured('OPENFRMT_MAKER_TAX_ID is not set: the OPENFRMT export needs the software maker\'s VAT number (A000 field 1009)');
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
  try {
    const bkmvPath = path.join(work, 'BKMVDATA.TXT');
    const out = createWriteStream(bkmvPath);
    // A failed write (disk full) must fail the run, not crash the process or hang on 'drain'.
    let writeError: Error | null = null;
    out.on('error', (e) => (writeError = e));
    const asm = new BkmvAssembler(vatId, run.primaryId);
    const source = new SourceDigest();
    await write(out, asm.open());
    let after: { date: string; type: number; num: number } | null = null;
    let chunkNo = 0;
    for (;;) {
      // Ordered by the table's columns (index documents_export_order), so LIMIT stops early.
      const rows: { snapshot: unknown; day: string; doc_type: number; doc_number: number }[] = await query(
        db,
        sql`SELECT d.snapshot, d.document_date::text AS day, d.doc_type, d.doc_number FROM documents d
            WHERE d.business_id = ${business.id} AND d.status = 'issued'
              AND d.document_date BETWEEN ${range.from} AND ${range.to} AND d.issued_at <= ${cutOff.toISOString()}
              ${after ? sql`AND (d.document_date, d.doc_type, d.doc_number) > (${after.date}::date, ${after.type}, ${after.num})` : sql``}
            ORDER BY d.document_date, d.doc_type, d.doc_number LIMIT ${chunkSize}`,
      );
      for (const r of rows) {
        const snap = (typeof r.snapshot === 'string' ? JSON.parse(r.snapshot) : r.snapshot) as DocumentSnapshot;
        const doc = exportDocument(snap);
        source.add(doc);
        await write(out, asm.document(doc));
      }
      await opts.afterChunk?.(++chunkNo);
      if (rows.length < chunkSize) break;
      const last = rows[rows.length - 1];
      after = { date: last.day.slice(0, 10), type: Number(last.doc_type), num: Number(last.doc_number) };
    }
    // No M100: the service keeps no inventory (see map-document.ts); source.items stays 0.
    const closing = asm.close();
    await write(out, closing.bytes);
    out.end();
    if (!out.closed) await once(out, 'close');
    if (writeError) throw writeError;

    const ini = iniFile(
      {
        totalRecords: closing.totalRecords, vatId, primaryId: run.primaryId, softwareRegNo: s.config.exports.softwareRegNo,
        softwareName: SOFTWARE_NAME, softwareVersion: SOFTWARE_VERSION, makerVatId: s.config.exports.makerTaxId,
        makerName: s.config.exports.makerName, softwareType: 2, savePath: production.dir.replace(/\//g, '\\'),
        bookkeepingType: 0, balanceLevel: 0, companyRegNo: business.dealerType === 'company' ? vatId : null,
        businessName: business.name, street: business.address, rangeFrom: range.from, rangeTo: range.to,
        processDate: production.date, processTime: production.time, languageCode: 0, charset: 1, compressor: 'zip',
        currency: 'ILS', hasBranches: 0,
      },
      asm.counts,
    );
    const zip = await zipTree(production.dir, ini, bkmvPath, zipTime(production));
    const totals = await databaseTotals(db, business.id, range.from, range.to, cutOff);
    const verification = verifyZip(zip, production.dir, source, totals);
    const recordCounts = { A100: 1, ...Object.fromEntries(Object.entries(asm.counts).filter(([, n]) => n > 0)), Z900: 1, total: closing.totalRecords };
    const report = runReport({
      vatId, businessName: business.name, directory: production.dir, from: range.from, to: range.to,
      summary: { recordCounts: verification.recordCounts, byDocType: verification.byDocType.map((c) => ({ docType: c.docType, ...c.file })) },
      softwareName: SOFTWARE_NAME, registrationNumber: s.config.exports.softwareRegNo || '00000000', production, ok: verification.ok,
    });
    const status = verification.ok ? 'completed' : 'failed';
    const at = s.clock.now();
    const name = `OPENFRMT-${vatId.slice(0, 8)}-${production.dir.slice(-8)}.zip`;
    return await db.transaction(async (tx) => {
      const file = await storeFile(tx, at, { businessId: business.id, bytes: zip, mime: 'application/zip', name });
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
    // The run must not stay "running": record the failure (without internals), then let the error answer 500.
    await db
      .transaction((tx) => finishRun(tx, s.clock.now(), run.id, { status: 'failed', recordCounts: null, fileId: null, verification: null, report: null, error: 'the export could not be produced' }))
      .catch(() => {});
    throw err;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
