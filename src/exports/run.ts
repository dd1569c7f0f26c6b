/**
 * One OPENFRMT run. The set is fixed at the start (issued up to the start instant, document date in
 * range); BKMVDATA.TXT is written into a temporary zip as the documents are read (bkmv-writer.ts),
 * INI.TXT added under the mandated tree, the zip verified by reading it back from disk, put into the file
 * store (streamed from disk, platform/files.ts), and recorded with the run in one final transaction.
 * Neither BKMVDATA.TXT nor the zip is ever held whole in memory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Database } from '../platform/db/engine.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { recordEvent } from '../platform/outbox.ts';
import { putPath, recordFile, type FileMeta } from '../platform/files.ts';
import type { FileStore } from '../platform/file-store/store.ts';
import { checkDateRange } from '../platform/http/formats.ts';
import { AppError, conflict, unconfigured } from '../platform/errors.ts';
import { textProblemOf, BkmvAssembler, iniFile, newPrimaryId, productionDirectory } from '../openfrmt/index.ts';
import type { Services } from '../platform/http/services.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { judge, SourceDigest, type Verification } from './verify.ts';
import { startVerifier, type VerifierThread } from './verify-thread.ts';
import { databaseTotals } from './database-totals.ts';
import { runReport } from './report.ts';
import { trialBalances, type TrialBalanceRow } from '../ledger/index.ts';
import { finishRun, startRun, type ExportRunView, type StartedRun } from './store.ts';
import { openZip, writeBkmv, zipTime, type ZipOut } from './bkmv-writer.ts';

export const SOFTWARE_NAME = 'pinkas';
export const SOFTWARE_VERSION = '0.1.0';
/** Documents per chunk: one short read each. */
export const EXPORT_CHUNK = 500;

/**
 * Why a run failed, in words a caller may read: our own errors say it; a file-system error names
 * its code (a full or read-only disk); a database error its SQLSTATE; anything else stays generic.
 */
export function exportFailureReason(err: unknown): string {
  if (err instanceof AppError) return `the export could not be produced: ${err.message}`;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return `the export could not be produced: its temporary file could not be written or read (${code})`;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code))
    return `the export could not be produced: the database failed while it was read (SQLSTATE ${code})`;
  return 'the export could not be produced: an internal error (the server log has it under this run id)';
}

const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

/** What a run needs of the process's services: a process that only exports builds no more than these. */
export type ExportServices = Pick<Services, 'config' | 'clock' | 'logger' | 'fileStores'>;

export interface ExportResult {
  exportRun: ExportRunView;
  file: FileMeta;
}

export interface ExportOptions {
  chunkSize?: number;
  afterChunk?: (chunkNo: number) => Promise<void>;
  /** Told as each step begins (benchmarks). */
  onPhase?: (phase: 'read' | 'zip' | 'verify' | 'store') => void;
}

/** What every step of one run shares. */
interface RunContext {
  s: ExportServices;
  db: Database['db'];
  /** Where the zip goes. */
  store: FileStore;
  business: BusinessRecord;
  range: { from: string; to: string };
  actor: Actor;
  cutOff: Date;
  vatId: string;
  run: StartedRun;
  production: { dir: string; date: string; time: string };
  doubleEntry: boolean;
}

/** Refuses a run that could not produce a valid file: no maker VAT number, a business name or address too long. */
function checkExportable(s: ExportServices, business: BusinessRecord, range: { from: string; to: string }): void {
  checkDateRange(range, 'body');
  // A000/1009 is mandatory: without the maker's VAT number there is no valid INI.TXT (never zeros).
  if (!s.config.exports.makerTaxId) {
    throw unconfigured("OPENFRMT_MAKER_TAX_ID is not set: the OPENFRMT export needs the software maker's VAT number (A000 field 1009)");
  }
  // A business saved before its name and address were held to A000/1018–1019 could still carry
  // more: refuse rather than write a cut name into the file.
  for (const [value, field, label] of [
    [business.name, 'businessName', 'name'],
    [business.address, 'businessStreet', 'address'],
  ] as const) {
    const problem = value ? textProblemOf(value, field) : null;
    if (problem) throw conflict(`the business ${label} ${problem}: shorten it (PATCH /v1/businesses/${business.id}) before exporting`);
  }
}

/** INI.TXT: A000 with the final record count, then the counts per record type. */
function iniOf(c: RunContext, totalRecords: number, asm: BkmvAssembler): Buffer {
  const { s, business, range, vatId, production, doubleEntry } = c;
  return iniFile(
    {
      totalRecords,
      vatId,
      primaryId: c.run.primaryId,
      softwareRegNo: s.config.exports.softwareRegNo,
      softwareName: SOFTWARE_NAME,
      softwareVersion: SOFTWARE_VERSION,
      makerVatId: s.config.exports.makerTaxId,
      makerName: s.config.exports.makerName,
      softwareType: 2,
      savePath: production.dir.replace(/\//g, '\\'),
      // Double-entry books: 1013 = 2 and 1014 = 1 (balanced per entry); otherwise no ledger in the file.
      bookkeepingType: doubleEntry ? 2 : 0,
      balanceLevel: doubleEntry ? 1 : 0,
      companyRegNo: business.dealerType === 'company' ? vatId : null,
      businessName: business.name,
      street: business.address,
      rangeFrom: range.from,
      rangeTo: range.to,
      processDate: production.date,
      processTime: production.time,
      languageCode: 0,
      charset: 1,
      compressor: 'zip',
      currency: 'ILS',
      hasBranches: 0,
    },
    asm.counts,
  );
}

/** The database's side of the verification: the fixed set's totals and (double entry) the books' trial balances. */
interface DatabaseSide {
  totals: Awaited<ReturnType<typeof databaseTotals>>;
  books: { before: TrialBalanceRow[]; at: TrialBalanceRow[] } | null;
}

/**
 * Read while the file is written: each is an aggregate over the business's books (seconds of PostgreSQL at a
 * million documents) that depends only on the fixed set (range and cut-off), not on the file. One statement
 * after the other, on one connection beside the export's reads.
 */
async function databaseSide(c: RunContext): Promise<DatabaseSide> {
  const { db, business, range, cutOff } = c;
  const totals = await databaseTotals(db, business.id, { from: range.from, to: range.to, cutOff });
  if (!c.doubleEntry) return { totals, books: null };
  const [before, at] = await trialBalances(db, business.id, [dayBefore(range.from), range.to], cutOff);
  return { totals, books: { before: before.accounts, at: at.accounts } };
}

/**
 * The verification: the verifier's thread has been reading the zip from its file while it was written
 * (verify-thread.ts); once the zip is complete, its ReadBack is compared with the source and the database
 * (verify.ts), the ledger with the books' trial balances.
 */
async function verifyRun(verifier: VerifierThread, zipSize: number, source: SourceDigest, database: DatabaseSide): Promise<Verification> {
  return judge(await verifier.result(zipSize, database.books), source.figures(), database.totals);
}

/** The zip, the finished run, its audit row and (completed) its event, in one transaction. */
async function storeRun(
  c: RunContext,
  zipPath: string,
  verification: Verification,
  counts: { asm: BkmvAssembler; totalRecords: number },
): Promise<ExportResult> {
  const { s, business, range, vatId, production, run } = c;
  const recordCounts = { A100: 1, ...Object.fromEntries(Object.entries(counts.asm.counts).filter(([, n]) => n > 0)), Z900: 1, total: counts.totalRecords };
  const report = runReport({
    vatId,
    businessName: business.name,
    directory: production.dir,
    from: range.from,
    to: range.to,
    summary: { recordCounts: verification.recordCounts, byDocType: verification.byDocType.map((v) => ({ docType: v.docType, ...v.file })) },
    softwareName: SOFTWARE_NAME,
    registrationNumber: s.config.exports.softwareRegNo || '00000000',
    production,
    ok: verification.ok,
  });
  const status = verification.ok ? 'completed' : 'failed';
  const at = s.clock.now();
  const name = `OPENFRMT-${vatId.slice(0, 8)}-${production.dir.slice(-8)}.zip`;
  // Streamed from disk into the file store, before the transaction that names it.
  const object = await putPath(c.store, zipPath);
  return c.db.transaction(async (tx) => {
    const file = await recordFile(tx, at, { businessId: business.id, object, mime: 'application/zip', name });
    const exportRun = await finishRun(tx, at, run.id, {
      status,
      recordCounts,
      fileId: file.id,
      verification,
      report,
      error: verification.ok ? null : 'verification failed',
    });
    await appendAudit(
      tx,
      { at, actor: c.actor },
      {
        businessId: business.id,
        action: 'export.openfrmt',
        entityType: 'export_run',
        entityId: run.id,
        after: { from: range.from, to: range.to, status, fileId: file.id, recordCounts },
      },
    );
    if (status === 'completed') {
      await recordEvent(tx, at, {
        event: 'export.completed',
        accountId: business.accountId,
        businessId: business.id,
        data: { exportRunId: run.id, fileId: file.id, recordCount: counts.totalRecords },
      });
    }
    const { existed: _existed, ...meta } = file;
    return { exportRun, file: meta };
  });
}

/**
 * The run must not stay "running" and its failure must not be silent: the run records a reason
 * (never internals), the audit trail says who ran it and why it failed; the caller then throws.
 */
async function recordFailure(c: RunContext, err: unknown): Promise<void> {
  const { s, business, range, run } = c;
  const reason = exportFailureReason(err);
  s.logger.error({ err, exportRunId: run.id, businessId: business.id }, 'OPENFRMT export failed');
  const failedAt = s.clock.now();
  await c.db
    .transaction(async (tx) => {
      await finishRun(tx, failedAt, run.id, { status: 'failed', recordCounts: null, fileId: null, verification: null, report: null, error: reason });
      await appendAudit(
        tx,
        { at: failedAt, actor: c.actor },
        {
          businessId: business.id,
          action: 'export.openfrmt',
          entityType: 'export_run',
          entityId: run.id,
          after: { from: range.from, to: range.to, status: 'failed', fileId: null, error: reason },
        },
      );
    })
    .catch((e) => s.logger.error({ err: e, exportRunId: run.id }, 'the failed export run could not be recorded'));
}

/** What a failed run must stop, or see settle: the zip being written, the thread reading it, the database's side. */
interface Running {
  out?: ZipOut;
  verifier?: VerifierThread;
  database?: Promise<DatabaseSide>;
}

/** Writes the zip, verifies it and stores it with the run: the steps once the run is started. */
async function produce(c: RunContext, work: string, opts: ExportOptions, running: Running): Promise<ExportResult> {
  opts.onPhase?.('read');
  const zipPath = path.join(work, 'export.zip');
  // A failed write (disk full) must fail the run, not crash the process or hang on 'drain'.
  const out = (running.out = openZip(c.production.dir, zipTime(c.production), zipPath));
  // The verifier's thread opens the file: once it exists.
  await Promise.race([once(out.file, 'ready'), out.done]);
  const verifier = (running.verifier = startVerifier({ zipPath, expectedDir: c.production.dir, doubleEntry: c.doubleEntry }, out.file));
  const database = (running.database = databaseSide(c));
  // Awaited once the zip is written; a failed write must not leave it unhandled meanwhile.
  database.catch(() => {});
  const asm = new BkmvAssembler(c.vatId, c.run.primaryId);
  const source = new SourceDigest();
  const totalRecords = await writeBkmv(out, asm, source, {
    db: c.db,
    businessId: c.business.id,
    range: c.range,
    cutOff: c.cutOff,
    doubleEntry: c.doubleEntry,
    chunkSize: opts.chunkSize ?? EXPORT_CHUNK,
    afterChunk: opts.afterChunk,
  });
  const ini = iniOf(c, totalRecords, asm);
  opts.onPhase?.('zip');
  await out.finish(ini);
  opts.onPhase?.('verify');
  const verification = await verifyRun(verifier, out.file.bytesWritten, source, await database);
  opts.onPhase?.('store');
  return storeRun(c, zipPath, verification, { asm, totalRecords });
}

export async function runOpenfrmtExport(
  s: ExportServices,
  database: Database,
  { business, range, actor, opts = {} }: { business: BusinessRecord; range: { from: string; to: string }; actor: Actor; opts?: ExportOptions },
): Promise<ExportResult> {
  checkExportable(s, business, range);
  const db = database.db;
  const cutOff = s.clock.now();
  const vatId = business.taxId.padStart(9, '0');
  const run = await db.transaction((tx) =>
    startRun(tx, {
      businessId: business.id,
      from: range.from,
      to: range.to,
      cutOff,
      primaryId: newPrimaryId(),
      keyId: actor.keyId,
      directoryOf: (at) => productionDirectory(vatId, at).dir,
    }),
  );
  const c: RunContext = {
    s,
    db,
    store: s.fileStores[database.mode].current,
    business,
    range,
    actor,
    cutOff,
    vatId,
    run,
    production: productionDirectory(vatId, run.production),
    doubleEntry: business.bookkeeping === 'double',
  };
  const work = await mkdtemp(path.join(tmpdir(), 'pinkas-openfrmt-'));
  const running: Running = {};
  try {
    return await produce(c, work, opts, running);
  } catch (err) {
    running.out?.abort();
    running.verifier?.stop();
    // No statement of the run's left running once it has answered.
    await running.database?.catch(() => {});
    await recordFailure(c, err);
    throw err;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
