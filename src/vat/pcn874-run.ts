/**
 * One PCN874 run: the VAT report of the period and its lines read in one repeatable-read snapshot (the
 * file and the report it ties to see the same books), the file formatted, read back and checked
 * against that report, then stored with the run and its audit row in one transaction. A failure is
 * recorded on the run with a reason and audited, like an OPENFRMT run.
 */
import type { Database, Tx } from '../platform/db/engine.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { recordEvent } from '../platform/outbox.ts';
import { putBytes, recordFile, type FileMeta, type StoredObject } from '../platform/files.ts';
import { newId } from '../platform/ids.ts';
import { conflict } from '../platform/errors.ts';
import { israelDate } from '../platform/clock.ts';
import type { Services } from '../platform/http/services.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { exportFailureReason, finishRun, startPcn874Run, type ExportRunView, type Verification } from '../exports/index.ts';
import { parseVatPeriod, type VatPeriod } from './period.ts';
import { allVatLines, ledgerVatReport } from './report.ts';
import { formatPcn874, readPcn874 } from './pcn874.ts';
import { pcn874Of, verifyPcn874, type Pcn874Verification } from './pcn874-map.ts';

export interface Pcn874Result {
  exportRun: ExportRunView;
  file: FileMeta;
}

/** A value the layout cannot hold (an amount wider than its field) is the caller's data, said plainly: 409. */
function formatted(write: () => Buffer): Buffer {
  try {
    return write();
  } catch (err) {
    if (err instanceof RangeError) throw conflict(`the PCN874 layout cannot hold a value of this period: ${err.message}`);
    throw err;
  }
}

type RunAudit = { businessId: string; action: 'export.pcn874'; entityType: string; entityId: string };

/** Reads the period's VAT report and lines in one snapshot, formats the file and checks it against that report. */
async function producePcn874(
  database: Database,
  { business, period, vatId, today }: { business: BusinessRecord; period: VatPeriod; vatId: string; today: string },
) {
  const { report, lines } = await database.db.transaction(
    async (tx) => {
      const report = await ledgerVatReport(tx, business.id, period);
      return { report, lines: await allVatLines(tx, business.id, period) };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
  const bytes = formatted(() => formatPcn874(pcn874Of(vatId, { report, lines, firstMonth: period.firstMonth, generated: today })));
  return { bytes, verification: verifyPcn874(readPcn874(bytes), vatId, report, lines) };
}

/** Stores the file and finishes the run (completed, or failed when the check found problems), with its audit row and event. */
async function storeRun(
  tx: Tx,
  {
    at,
    business,
    actor,
    run,
    object,
    verification,
  }: {
    at: Date;
    business: BusinessRecord;
    actor: Actor;
    run: { id: string; name: string; period: string; audit: RunAudit };
    object: StoredObject;
    verification: Pcn874Verification;
  },
): Promise<Pcn874Result> {
  const { id, audit } = run;
  const status = verification.ok ? 'completed' : 'failed';
  const recordCounts = { ...verification.recordCounts };
  const file = await recordFile(tx, at, { businessId: business.id, object, mime: 'text/plain; charset=us-ascii', name: run.name });
  // export_runs.verification is jsonb: a PCN874 run keeps its own check there (kind tells which).
  const exportRun = await finishRun(tx, at, id, {
    status,
    recordCounts,
    fileId: file.id,
    verification: verification as unknown as Verification,
    report: null,
    error: verification.ok ? null : `verification failed: ${verification.problems.slice(0, 3).join('; ')}`,
  });
  await appendAudit(tx, { at, actor }, { ...audit, after: { kind: 'pcn874', period: run.period, status, fileId: file.id, recordCounts } });
  if (status === 'completed') {
    await recordEvent(tx, at, {
      event: 'export.completed',
      accountId: business.accountId,
      businessId: business.id,
      data: { exportRunId: id, fileId: file.id, recordCount: recordCounts.total },
    });
  }
  const { existed: _existed, ...meta } = file;
  return { exportRun, file: meta };
}

/** Records a run that threw as failed, with the reason; a failure to record it is logged, never thrown over the first error. */
async function recordFailedRun(
  s: Services,
  database: Database,
  { actor, run, err }: { actor: Actor; run: { id: string; period: string; audit: RunAudit }; err: unknown },
): Promise<void> {
  const reason = exportFailureReason(err);
  s.logger.error({ err, exportRunId: run.id, businessId: run.audit.businessId }, 'PCN874 export failed');
  const failedAt = s.clock.now();
  await database.db
    .transaction(async (tx) => {
      await finishRun(tx, failedAt, run.id, { status: 'failed', recordCounts: null, fileId: null, verification: null, report: null, error: reason });
      await appendAudit(
        tx,
        { at: failedAt, actor },
        { ...run.audit, after: { kind: 'pcn874', period: run.period, status: 'failed', fileId: null, error: reason } },
      );
    })
    .catch((e) => s.logger.error({ err: e, exportRunId: run.id }, 'the failed PCN874 run could not be recorded'));
}

export async function runPcn874Export(
  s: Services,
  database: Database,
  { business, body, actor }: { business: BusinessRecord; body: { period: string }; actor: Actor },
): Promise<Pcn874Result> {
  const period = parseVatPeriod(body.period, 'body.period', business.vatReportingPeriod);
  if (business.dealerType !== 'murshe' && business.dealerType !== 'company') {
    throw conflict(`a ${business.dealerType} dealer charges no VAT and files no PCN874: the file is for a murshe or a company`);
  }
  const now = s.clock.now();
  const today = israelDate(now);
  if (period.to >= today) throw conflict(`the period ${period.period} ends on ${period.to}: its PCN874 file is produced after it has ended`);

  const db = database.db;
  const vatId = business.taxId.padStart(9, '0');
  const id = newId('exr', now.getTime());
  // The circular's Appendix A names the file PCN874.TXT; the run (kind, period) tells one from another.
  const name = 'PCN874.TXT';
  const audit: RunAudit = { businessId: business.id, action: 'export.pcn874' as const, entityType: 'export_run', entityId: id };
  const run = { id, name, period: period.period, audit };
  await startPcn874Run(db, { id, businessId: business.id, from: period.from, to: period.to, name, at: now, keyId: actor.keyId });
  try {
    const { bytes, verification } = await producePcn874(database, { business, period, vatId, today });
    // In the file store before the transaction that names it.
    const object = await putBytes(s.fileStores[database.mode].current, bytes);
    const at = s.clock.now();
    return await db.transaction((tx) => storeRun(tx, { at, business, actor, run, object, verification }));
  } catch (err) {
    await recordFailedRun(s, database, { actor, run, err });
    throw err;
  }
}
