// The durable `document.render` job: renders and signs the origin and the copy of an issued
// document, stores them, and publishes them (pdf_files, public links, document.pdf_ready) at once.
import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { PermanentJobError, RetryLaterError, type Job, type JobHandler } from '../platform/jobs.ts';
import { backoffMs, JOBS, type JobKind } from '../platform/catalog/jobs.ts';
import { putBytes, recordFile, type StoredObject } from '../platform/files.ts';
import { fileReading, readFile } from '../platform/file-read.ts';
import { randomToken } from '../platform/ids.ts';
import { appendAudit } from '../platform/audit.ts';
import { recordEvent } from '../platform/outbox.ts';
import type { Services } from '../platform/http/services.ts';
import { attachPdfFiles, findDocumentRow, getDocumentById, type DocumentRow, type PdfFiles } from '../documents/index.ts';
import { issuedRenderModel } from './render-model.ts';
import { SigningUnconfigured, signingSourceFor } from './signing.ts';
import type { SigningSource } from './render-task.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { pdfLinks } from './tables.ts';

export const RENDER_JOB = 'document.render' satisfies JobKind;

/** Slugs are 24 random bytes (192 bits), base64url: public capabilities that cannot be guessed. */
export const SLUG_BYTES = 24;

/** Retry delays of a failed render (the catalog's policy). */
export const renderBackoffMs = (attempt: number) => backoffMs(JOBS[RENDER_JOB].retry.backoff, attempt);

/** How long until a pending allocation answer is checked again, within the configured bound. */
export function allocationWait(doc: DocumentRow, now: Date, boundMs: number): number | null {
  if (doc.allocationNumber || doc.allocation?.status !== 'pending' || !doc.issuedAt) return null;
  const left = new Date(doc.issuedAt).getTime() + boundMs - now.getTime();
  return left > 0 ? Math.min(left, 3_000) : null;
}

async function logoBytes(s: Services, database: Database, doc: DocumentRow): Promise<Uint8Array | null> {
  const ref = doc.snapshot?.branding.logoRef;
  if (!ref) return null;
  const f = await readFile(fileReading(s, database), ref.fileId);
  return f ? f.content : null;
}

/** Records both files (already in the store), links them, marks the document and tells the audit trail and the webhooks; null when another run published first. */
async function publishPdfs(
  s: Services,
  tx: Tx,
  doc: DocumentRow,
  pdfs: { origin: StoredObject; copy: StoredObject },
  allocationNumber: string | null,
): Promise<PdfFiles | null> {
  const { origin, copy } = pdfs;
  const current = await findDocumentRow(tx, doc.businessId, doc.id, true);
  if (!current || current.pdfFiles) return current?.pdfFiles ?? null;
  const now = s.clock.now();
  const name = (v: string) => `${doc.docType}-${doc.docNumber}-${v}.pdf`;
  const originFile = await recordFile(tx, now, { businessId: doc.businessId, object: origin, mime: 'application/pdf', name: name('origin') });
  const copyFile = await recordFile(tx, now, { businessId: doc.businessId, object: copy, mime: 'application/pdf', name: name('copy') });
  const files: PdfFiles = {
    origin: { fileId: originFile.id, slug: randomToken(SLUG_BYTES) },
    copy: { fileId: copyFile.id, slug: randomToken(SLUG_BYTES) },
  };
  for (const variant of ['origin', 'copy'] as const) {
    await tx.execute(
      insertInto(pdfLinks, {
        slug: files[variant].slug,
        businessId: doc.businessId,
        documentId: doc.id,
        variant,
        fileId: files[variant].fileId,
        createdAt: now,
      }),
    );
  }
  await attachPdfFiles(tx, doc.id, files, now);
  const business = await queryOne<{ account_id: string }>(tx, sql`SELECT account_id FROM businesses WHERE id = ${doc.businessId}`);
  await appendAudit(
    tx,
    now,
    { accountId: business!.account_id, keyId: null },
    {
      businessId: doc.businessId,
      action: 'document.pdf_rendered',
      entityType: 'document',
      entityId: doc.id,
      after: { pdfFiles: { origin: files.origin.fileId, copy: files.copy.fileId }, allocationNumber },
    },
  );
  await recordEvent(tx, now, {
    event: 'document.pdf_ready',
    accountId: business!.account_id,
    businessId: doc.businessId,
    data: {
      documentId: doc.id,
      files: { origin: { id: files.origin.fileId, slug: files.origin.slug }, copy: { id: files.copy.fileId, slug: files.copy.slug } },
    },
  });
  return files;
}

/** Renders, then publishes in one short transaction; idempotent (a second run finds pdf_files set). */
export async function renderAndPublish(s: Services, database: Database, documentId: string): Promise<PdfFiles | null> {
  const doc = await getDocumentById(database.db, documentId);
  if (!doc) throw new PermanentJobError(`document ${documentId} does not exist`);
  if (doc.status !== 'issued' || !doc.snapshot) throw new PermanentJobError(`document ${documentId} is not issued`);
  if (doc.pdfFiles) return doc.pdfFiles;
  const wait = allocationWait(doc, s.clock.now(), s.config.prints.allocationWaitMs);
  if (wait !== null) throw new RetryLaterError(wait, 'waiting for the allocation number');

  // Rendering and signing are CPU work: in the render pool's threads (render-pool.ts), never inside a transaction.
  const model = issuedRenderModel(doc, await logoBytes(s, database, doc));
  let signing: SigningSource;
  try {
    signing = signingSourceFor(s.config, database.mode, s.logger, s.clock.now());
  } catch (err) {
    if (!(err instanceof SigningUnconfigured)) throw err;
    // Not the document's fault: wait (without using up attempts) until the certificate is configured.
    s.logger.warn({ documentId }, err.message);
    throw new RetryLaterError(60_000, err.message);
  }
  const { origin, copy } = await s.pdfRenderer.pair({ kind: 'pair', model, at: s.clock.now(), sandbox: database.mode === 'sandbox', signing });
  // Into the file store before the transaction that names them: a row never points at a missing object (a
  // run that loses the race below leaves two orphans for the sweep).
  const store = s.fileStores[database.mode].current;
  const stored = { origin: await putBytes(store, origin), copy: await putBytes(store, copy) };

  return database.db.transaction((tx) => publishPdfs(s, tx, doc, stored, model.allocationNumber ?? null));
}

export function renderJobHandler(s: Services): JobHandler<typeof RENDER_JOB> {
  return {
    // As many at once as keep the render threads busy; each waits on its thread, not on the event loop.
    concurrency: s.pdfRenderer.capacity,
    async handle(job: Job<typeof RENDER_JOB>, database: Database) {
      await renderAndPublish(s, database, job.refId);
    },
    async onFailed(job: Job<typeof RENDER_JOB>, _database: Database, error: string) {
      s.logger.error({ documentId: job.refId, error }, 'PDF rendering failed for good; prints of this document answer pdf_pending');
    },
  };
}
