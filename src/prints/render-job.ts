// The durable `document.render` job: renders and signs the origin and the copy of an issued
// document, stores them, and publishes them (the public links that name them, document.pdf_ready) at once.
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { PermanentJobError, RetryLaterError, type Job, type JobHandler } from '../platform/jobs.ts';
import { JOBS, type JobKind } from '../platform/catalog/jobs.ts';
import { retryDelayMs } from '../platform/retry-schedule.ts';
import { putBytes, type StoredObject } from '../platform/files.ts';
import { fileReading, readFile } from '../platform/file-read.ts';
import { newId, randomToken } from '../platform/ids.ts';
import { coalesce } from '../platform/coalesce.ts';
import { auditRowCall } from '../platform/audit.ts';
import type { EventData } from '../platform/catalog/events.ts';
import type { Services } from '../platform/http/services.ts';
import { requestsInFlight } from '../platform/http/requests-in-flight.ts';
import { getDocumentWithAccount, getDocumentsWithAccount, type DocumentRow, type PdfFiles } from '../documents/index.ts';
import { DOC_TYPES } from '../documents/doc-types.ts';
import { donationReportNumberOf } from '../donations/index.ts';
import { issuedRenderModel } from './render-model.ts';
import { SigningUnconfigured, signingSourceFor } from './signing.ts';
import type { SigningSource } from './render-task.ts';

export const RENDER_JOB = 'document.render' satisfies JobKind;

/** Slugs are 24 random bytes (192 bits), base64url: public capabilities that cannot be guessed. */
export const SLUG_BYTES = 24;

/** Retry delays of a failed render (the catalog's policy). */
export const renderBackoffMs = (attempt: number) => retryDelayMs(JOBS[RENDER_JOB].retry, attempt);

/** How long until a number still pending since issue is checked again, within the configured bound; null: render now. */
function waitWithin(doc: DocumentRow, now: Date, boundMs: number): number | null {
  if (!doc.issuedAt) return null;
  const left = new Date(doc.issuedAt).getTime() + boundMs - now.getTime();
  return left > 0 ? Math.min(left, 3_000) : null;
}

/** How long until a pending allocation answer is checked again, within the configured bound. */
export function allocationWait(doc: DocumentRow, now: Date, boundMs: number): number | null {
  if (doc.allocationNumber || doc.allocation?.status !== 'pending') return null;
  return waitWithin(doc, now, boundMs);
}

/** The same for a donation receipt's report number (a 405, or the negative 405 that reports its cancellation). */
export function donationReportWait(doc: DocumentRow, report: { pending: boolean } | null, now: Date, boundMs: number): number | null {
  return report?.pending ? waitWithin(doc, now, boundMs) : null;
}

/** A logo's bytes by its file id (null: no such file). */
type LogoBytes = (fileId: string) => Promise<Uint8Array | null>;

const readLogo =
  (s: Services, database: Database): LogoBytes =>
  async (fileId) =>
    (await readFile(fileReading(s, database), fileId))?.content ?? null;

/** Logos kept at once: those of the businesses rendering now. */
const LOGOS_KEPT = 32;

/**
 * Logos kept by file id, most recently used last: a file's bytes never change (files_guard), so bytes read and
 * checked against their sha256 once stay right, and a business's documents stop reading its logo each.
 */
function keptLogos(read: LogoBytes): LogoBytes {
  const kept = new Map<string, Promise<Uint8Array | null>>();
  const forget = (fileId: string) => kept.delete(fileId);
  return (fileId) => {
    let bytes = kept.get(fileId);
    if (bytes) forget(fileId);
    else
      bytes = read(fileId).then(
        (b) => {
          // A missing file is not kept: it is not a logo.
          if (!b) forget(fileId);
          return b;
        },
        (err: unknown) => {
          forget(fileId);
          throw err;
        },
      );
    kept.set(fileId, bytes);
    if (kept.size > LOGOS_KEPT) forget(kept.keys().next().value!);
    return bytes;
  };
}

type Variant = 'origin' | 'copy';

/** The argument of publish_pdfs (migrations 0029, 0030): both files (already in the store), their links, the audit row and document.pdf_ready. */
function publishCall(
  doc: DocumentRow & { accountId: string },
  pdfs: Record<Variant, StoredObject>,
  ids: Record<Variant, string>,
  c: { at: Date; allocationNumber: string | null },
) {
  const sha = { origin: pdfs.origin.sha256, copy: pdfs.copy.sha256 };
  // The same content twice would be one file (files are kept once per content).
  if (sha.copy === sha.origin) ids = { ...ids, copy: ids.origin };
  const file = (v: Variant) => ({ id: ids[v], sha256: sha[v], size: pdfs[v].size, name: `${doc.docType}-${doc.docNumber}-${v}.pdf` });
  const pdfFiles: PdfFiles = {
    origin: { fileId: ids.origin, slug: randomToken(SLUG_BYTES) },
    copy: { fileId: ids.copy, slug: randomToken(SLUG_BYTES) },
  };
  const data: EventData<'document.pdf_ready'> = {
    documentId: doc.id,
    files: { origin: { id: ids.origin, slug: pdfFiles.origin.slug }, copy: { id: ids.copy, slug: pdfFiles.copy.slug } },
  };
  return {
    documentId: doc.id,
    businessId: doc.businessId,
    at: c.at.toISOString(),
    mime: 'application/pdf',
    store: pdfs.origin.backend,
    files: { origin: file('origin'), copy: file('copy') },
    pdfFiles,
    audit: auditRowCall(
      c.at,
      { accountId: doc.accountId, keyId: null },
      {
        businessId: doc.businessId,
        action: 'document.pdf_rendered',
        entityType: 'document',
        entityId: doc.id,
        after: { pdfFiles: { origin: ids.origin, copy: ids.copy }, allocationNumber: c.allocationNumber },
      },
    ),
    event: { id: newId('evt', c.at.getTime()), event: 'document.pdf_ready', accountId: doc.accountId, businessId: doc.businessId, data },
  };
}

type Published =
  | { outcome: 'published' | 'published_before'; pdfFiles: PdfFiles }
  | { outcome: 'not_found' }
  | { outcome: 'files_exist'; existing: Partial<Record<Variant, string>> };

type PublishCall = ReturnType<typeof publishCall>;
/** Sends one document's publish_pdfs argument; answers its outcome. */
type Publish = (call: PublishCall) => Promise<Published>;
type IssuedDocument = DocumentRow & { accountId: string };

/** How a render job reads its document and publishes its PDFs: alone, or together with other jobs of its process. */
interface Statements {
  read: (documentId: string) => Promise<IssuedDocument | undefined>;
  logo: LogoBytes;
  publish: Publish;
}

const alone = (s: Services, database: Database): Statements => ({
  read: (id) => getDocumentWithAccount(database.db, id),
  logo: readLogo(s, database),
  publish: publishAlone(database),
});

/**
 * The reads and publishes of render jobs that run at once go to the database together (coalesce: one statement
 * at a time, with what arrived meanwhile), so the jobs in flight share round trips and hold one connection each
 * way rather than one a job; logos are kept.
 */
function together(s: Services, database: Database): Statements {
  const read = coalesce<string, IssuedDocument | undefined>(
    async (ids) => {
      const docs = await getDocumentsWithAccount(database.db, ids);
      return ids.map((id) => docs.get(id));
    },
    { max: 64 },
  );
  return { read, logo: keptLogos(readLogo(s, database)), publish: publishTogether(database) };
}

/** publish_pdfs of one document, a statement of its own. */
function publishAlone(database: Database): Publish {
  return async (call) => {
    const r = await queryOne<{ published: Published }>(database.db, sql`SELECT publish_pdfs(${JSON.stringify(call)}::jsonb) AS published`);
    return r!.published;
  };
}

/**
 * Publishes in one transaction at most: each holds its document's row and its business's audit chain until the
 * batch commits, so an issue of one of those businesses may wait for the batch (~1 ms an item).
 */
const PUBLISH_BATCH = 8;

/**
 * The publishes of render jobs that finish while another is being sent go together, in one
 * publish_pdfs_batch statement (migration 0063): one round trip and one commit for all. Items go in the order
 * of business and document, so two batches lock in one order.
 */
function publishTogether(database: Database): Publish {
  const one = publishAlone(database);
  return coalesce<PublishCall, Published>(
    async (calls) => {
      if (calls.length === 1) return [await one(calls[0])];
      const key = (c: PublishCall) => `${c.businessId}\0${c.documentId}`;
      const order = calls.map((_, i) => i).sort((a, b) => (key(calls[a]) < key(calls[b]) ? -1 : 1));
      const r = await queryOne<{ published: Published[] }>(
        database.db,
        sql`SELECT publish_pdfs_batch(${JSON.stringify(order.map((i) => calls[i]))}::jsonb) AS published`,
      );
      const answers = new Array<Published>(calls.length);
      order.forEach((i, k) => (answers[i] = r!.published[k]));
      return answers;
    },
    { max: PUBLISH_BATCH },
  );
}

/**
 * Stores both files, links them, marks the document, and tells the audit trail and the webhooks, in
 * one publish_pdfs call; answers the document's files (another run's when it published first).
 */
async function publishPdfs(
  publish: Publish,
  doc: IssuedDocument,
  pdfs: Record<Variant, StoredObject>,
  c: { at: Date; allocationNumber: string | null },
): Promise<PdfFiles | null> {
  let ids = { origin: newId('file', c.at.getTime()), copy: newId('file', c.at.getTime()) };
  // At most twice: a second call names the files already stored with this content.
  for (let attempt = 0; attempt < 2; attempt++) {
    const published = await publish(publishCall(doc, pdfs, ids, c));
    if (published.outcome === 'not_found') return null;
    if (published.outcome !== 'files_exist') return published.pdfFiles;
    ids = { ...ids, ...published.existing };
  }
  throw new Error(`document ${doc.id}: its PDFs' files changed while they were published`);
}

/**
 * Renders, puts both PDFs into the file store, then publishes them in one statement (`via`: alone, or with other
 * jobs' reads and publishes); idempotent (a second run finds the links written).
 */
export async function renderAndPublish(s: Services, database: Database, documentId: string, via: Statements = alone(s, database)): Promise<PdfFiles | null> {
  const doc = await via.read(documentId);
  if (!doc) throw new PermanentJobError(`document ${documentId} does not exist`);
  if (doc.status !== 'issued' || !doc.snapshot) throw new PermanentJobError(`document ${documentId} is not issued`);
  if (doc.pdfFiles) return doc.pdfFiles;
  const wait = allocationWait(doc, s.clock.now(), s.config.prints.allocationWaitMs);
  if (wait !== null) throw new RetryLaterError(wait, 'waiting for the allocation number');
  const report = DOC_TYPES[doc.docType].donation ? await donationReportNumberOf(database.db, doc.id) : null;
  const reportWait = donationReportWait(doc, report, s.clock.now(), s.config.prints.donationReportWaitMs);
  if (reportWait !== null) throw new RetryLaterError(reportWait, 'waiting for the donation report number');

  // Rendering and signing are CPU work: in the render pool's threads (render-pool.ts), never inside a transaction.
  const logoRef = doc.snapshot.branding.logoRef;
  const model = issuedRenderModel(doc, logoRef ? await via.logo(logoRef.fileId) : null, report);
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
  // Into the file store before the call that names them: a row never points at a missing object (a run that
  // finds the document published already leaves two orphans for the sweep).
  const store = s.fileStores[database.mode].current;
  // Side by side: each put waits on its fsyncs (disk) or its request (S3), not on the CPU.
  const [storedOrigin, storedCopy] = await Promise.all([putBytes(store, origin), putBytes(store, copy)]);
  const stored = { origin: storedOrigin, copy: storedCopy };

  return publishPdfs(via.publish, doc, stored, { at: s.clock.now(), allocationNumber: model.allocationNumber ?? null });
}

/**
 * Render jobs in flight for each render the pool keeps queued: a job spends most of its time outside the pool
 * (reading the document, the files' fsyncs, publishing), so the threads stay fed only when more jobs run than
 * they render; their reads, publishes and completions go to the database together, so more jobs do not take
 * more connections.
 */
const JOBS_PER_RENDER = 4;

/**
 * Requests at once that make a burst: more than a client sending one request after another, or a person in
 * the console, keeps in flight.
 */
export const BURST_REQUESTS = 4;

/**
 * Whether the next render waits until the others in flight are done (renders one at a time): while the
 * process answers a burst of requests, PDFs take what the requests leave of the machine, until the oldest
 * waiting one has waited `yieldMs` (PDF_YIELD_MS); then they run at full speed again, so they never fall
 * further behind than that, beyond what full speed itself cannot catch up.
 */
export function renderYields({ requests, waitedMs, yieldMs }: { requests: number; waitedMs: number; yieldMs: number }): boolean {
  return requests >= BURST_REQUESTS && waitedMs < yieldMs;
}

export function renderJobHandler(s: Services): JobHandler<typeof RENDER_JOB> {
  const statements = new Map<Database, Statements>();
  const statementsOf = (database: Database) => {
    let via = statements.get(database);
    if (!via) statements.set(database, (via = together(s, database)));
    return via;
  };
  return {
    // Each waits on its render thread, its files' fsyncs or the database, never on the event loop.
    concurrency: s.pdfRenderer.capacity * JOBS_PER_RENDER,
    yields: (next) =>
      renderYields({ requests: requestsInFlight(), waitedMs: s.clock.now().getTime() - Date.parse(next.runAt), yieldMs: s.config.prints.yieldMs }),
    async handle(job: Job<typeof RENDER_JOB>, database: Database) {
      await renderAndPublish(s, database, job.refId, statementsOf(database));
    },
    async onFailed(job: Job<typeof RENDER_JOB>, _database: Database, error: string) {
      s.logger.error({ documentId: job.refId, error }, 'PDF rendering failed for good; prints of this document answer pdf_pending');
    },
  };
}
