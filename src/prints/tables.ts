/** Typed definitions of the prints domain's tables (migration 0006): the print log and the public PDF links. */
import { sql } from 'drizzle-orm';
import { jsonb, pgTable, text, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamptz3 } from '../platform/db/tables.ts';
import { PRINT_CHANNELS, PRINT_VARIANTS } from './lists.ts';

/** One row per hand-out of a PDF; append-only; at most one origin per document. */
export const documentPrints = pgTable(
  'document_prints',
  {
    id: text('id').primaryKey(),
    businessId: text('business_id').notNull(),
    documentId: text('document_id').notNull(),
    variant: text('variant', { enum: PRINT_VARIANTS }).notNull(),
    channel: text('channel', { enum: PRINT_CHANNELS }).notNull(),
    fileId: text('file_id').notNull(),
    keyId: text('key_id'),
    keyPrefix: text('key_prefix'),
    /** Email only: the addresses asked for. */
    recipients: jsonb('recipients'),
    createdAt: timestamptz3('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('document_prints_one_origin')
      .on(t.documentId)
      .where(sql`variant = 'origin'`),
  ],
);
export type DocumentPrintRow = typeof documentPrints.$inferSelect;
export type NewDocumentPrintRow = typeof documentPrints.$inferInsert;

/** Capability links /api/docs/<slug>/d.pdf; never changed or removed. */
export const pdfLinks = pgTable(
  'pdf_links',
  {
    slug: text('slug').primaryKey(),
    businessId: text('business_id').notNull(),
    documentId: text('document_id').notNull(),
    variant: text('variant', { enum: PRINT_VARIANTS }).notNull(),
    fileId: text('file_id').notNull(),
    createdAt: timestamptz3('created_at').notNull(),
  },
  (t) => [unique('pdf_links_document_id_variant_key').on(t.documentId, t.variant)],
);
export type PdfLinkRow = typeof pdfLinks.$inferSelect;
export type NewPdfLinkRow = typeof pdfLinks.$inferInsert;
