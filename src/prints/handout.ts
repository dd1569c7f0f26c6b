// Handing out a PDF (print, share, email): decides origin or copy, logs it, counts it.
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, query, queryOne } from '../platform/db/sql.ts';
import { AppError, conflict, notFound } from '../platform/errors.ts';
import { appendAudit } from '../platform/audit.ts';
import { newId } from '../platform/ids.ts';
import type { Services } from '../platform/http/services.ts';
import type { RequestContext } from '../platform/http/context.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { claimOriginPrint, countCopyPrint, findDocumentRow, type DocumentRow } from '../documents/index.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { documentPrints } from './tables.ts';
import type { PrintChannel, PrintKind, PrintVariant } from './lists.ts';

export type { PrintChannel, PrintKind, PrintVariant } from './lists.ts';

export interface Handout {
  printId: string;
  variant: PrintVariant;
  fileId: string;
  slug: string;
  createdAt: string;
}

export interface PrintLogEntry {
  id: string;
  variant: PrintVariant;
  channel: PrintChannel;
  fileId: string;
  keyPrefix: string | null;
  recipients: string[] | null;
  createdAt: string;
}

export function pdfPending(s: Services): AppError {
  const seconds = s.config.prints.pendingRetryAfterSeconds;
  return new AppError('pdf_pending', 'the signed PDF of this document is still being rendered; retry shortly', { 'Retry-After': String(seconds) });
}

/** The document of the business, issued and rendered; the precise 404 / 409 otherwise. */
export async function renderedDocument(
  s: Services,
  ex: Executor,
  businessId: string,
  id: string,
): Promise<DocumentRow & { pdfFiles: NonNullable<DocumentRow['pdfFiles']> }> {
  const doc = await findDocumentRow(ex, businessId, id);
  if (!doc) throw notFound('document');
  if (doc.status !== 'issued') throw conflict('the document is a draft: only issued documents are shared, emailed or logged as prints');
  if (!doc.pdfFiles) throw pdfPending(s);
  return doc as DocumentRow & { pdfFiles: NonNullable<DocumentRow['pdfFiles']> };
}

/**
 * One short transaction. The origin is claimed with a conditional update (null → now, once):
 * of two racing requests exactly one matches the row; the other gets the copy (auto) or 409
 * (origin). The print log's unique origin index backs this in the database itself.
 */
export async function handOut(
  s: Services,
  ctx: RequestContext,
  {
    business,
    documentId,
    kind,
    channel,
    recipients = null,
  }: { business: BusinessRecord; documentId: string; kind: PrintKind; channel: PrintChannel; recipients?: string[] | null },
): Promise<Handout> {
  return ctx.database.db.transaction(async (tx) => {
    const doc = await renderedDocument(s, tx, business.id, documentId);
    const now = s.clock.now();
    let variant: PrintVariant = 'copy';
    if (kind !== 'copy') {
      if (await claimOriginPrint(tx, doc.id, now)) variant = 'origin';
      else if (kind === 'origin') throw conflict('the origin of this document was already handed out; ask for a copy');
    }
    if (variant === 'copy') await countCopyPrint(tx, doc.id, now);
    const file = doc.pdfFiles[variant];
    const printId = newId('prn', now.getTime());
    await tx.execute(
      insertInto(documentPrints, {
        id: printId,
        businessId: business.id,
        documentId: doc.id,
        variant,
        channel,
        fileId: file.fileId,
        keyId: ctx.key.id,
        keyPrefix: ctx.key.prefix,
        // No recipients (a print, not an email): SQL NULL, not a JSON null.
        recipients: recipients || undefined,
        createdAt: now,
      }),
    );
    await appendAudit(
      tx,
      { at: now, actor: ctx.actor },
      {
        businessId: business.id,
        action: `document.${channel}`,
        entityType: 'document',
        entityId: doc.id,
        after: { printId, variant, channel, fileId: file.fileId, ...(recipients ? { recipients } : {}) },
      },
    );
    return { printId, variant, fileId: file.fileId, slug: file.slug, createdAt: now.toISOString() };
  });
}

export async function printLog(ex: Executor, businessId: string, documentId: string): Promise<PrintLogEntry[]> {
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT * FROM document_prints WHERE business_id = ${businessId} AND document_id = ${documentId} ORDER BY created_at, id`,
  );
  return rows.map((r) => ({
    id: String(r.id),
    variant: r.variant as PrintVariant,
    channel: r.channel as PrintChannel,
    fileId: String(r.file_id),
    keyPrefix: (r.key_prefix as string | null) ?? null,
    recipients:
      r.recipients === null || r.recipients === undefined ? null : typeof r.recipients === 'string' ? JSON.parse(r.recipients) : (r.recipients as string[]),
    createdAt: iso(r.created_at),
  }));
}

/** A warning when the document's party has not consented to digital documents (decisions.md). */
export async function consentWarnings(ex: Executor, doc: DocumentRow): Promise<{ code: string; message: string }[]> {
  const partyId = doc.snapshot?.party?.partyId ?? doc.partyId;
  if (partyId) {
    const r = await queryOne<{ digital_doc_consent_at: unknown }>(ex, sql`SELECT digital_doc_consent_at FROM parties WHERE id = ${partyId}`);
    if (r && r.digital_doc_consent_at !== null && r.digital_doc_consent_at !== undefined) return [];
  }
  return [{ code: 'no_digital_consent', message: 'the party has no recorded consent to receive documents digitally (digitalDocConsentAt)' }];
}
