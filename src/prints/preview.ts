// The PDF a business's owner looks at in the console: never a handout, so never logged or counted.
import type { Readable } from 'node:stream';
import type { Database } from '../platform/db/engine.ts';
import { notFound } from '../platform/errors.ts';
import { storedFile } from '../platform/files.ts';
import { fileReading, openFile, readFile } from '../platform/file-read.ts';
import type { Services } from '../platform/http/services.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { findDocumentRow } from '../documents/index.ts';
import { pdfPending } from './handout.ts';
import { draftRenderModel } from './render-model.ts';

export interface PreviewPdf {
  body: Buffer | Readable;
  size: number;
  /** `draft`: rendered now, unsigned, watermarked; `copy`: the stored signed copy (marked as a copy). */
  variant: 'draft' | 'copy';
  name: string;
}

/**
 * A document's PDF for its owner's eyes: a draft's watermarked preview, or an issued document's stored
 * copy. The copy is printed "copy", so showing it can never pass for the one original; the print log
 * records what was handed out to others (print, share, email), which this is not. 404 / 409 pdf_pending
 * as the API answers them.
 */
export async function documentPreviewPdf(s: Services, database: Database, business: BusinessRecord, documentId: string): Promise<PreviewPdf> {
  const doc = await findDocumentRow(database.db, business.id, documentId);
  if (!doc) throw notFound('document');
  if (doc.status === 'draft') {
    const logoRef = business.branding.logoRef;
    const logo = logoRef ? ((await readFile(fileReading(s, database), logoRef.fileId))?.content ?? null) : null;
    const body = await s.pdfRenderer.draft({
      kind: 'draft',
      model: draftRenderModel(doc, business, logo),
      at: s.clock.now(),
      sandbox: database.mode === 'sandbox',
    });
    return { body, size: body.length, variant: 'draft', name: `draft-${doc.id}.pdf` };
  }
  if (!doc.pdfFiles) throw pdfPending(s);
  const file = await storedFile(database.db, doc.pdfFiles.copy.fileId);
  if (!file) throw new Error(`stored PDF ${doc.pdfFiles.copy.fileId} is missing`);
  return { body: await openFile(fileReading(s, database), file), size: file.size, variant: 'copy', name: file.name };
}
