/**
 * Typed definitions of the tables the documents domain writes (migrations 0001, 0002, 0010, 0019,
 * 0021). The numbering series (`document_counters`) are the businesses domain's. Other domains change an issued document only in the ways its trigger allows (allocation,
 * PDFs, prints), through the documents domain's functions.
 */
import { sql } from 'drizzle-orm';
import { boolean, customType, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { day, int8, metadataColumn, timestamptz3 } from '../platform/db/tables.ts';
import type { ConversionStage, DocType } from './doc-types.ts';
import { DOCUMENT_STATUSES, EXCHANGE_RATE_SOURCES, PRICE_MODES, VAT_EXEMPTION_REASONS } from './lists.ts';
import type { AllocationState, DocumentLine, DocumentParty, DocumentPayment, DocumentSnapshot, DocumentWarning, PdfFiles } from './snapshot-types.ts';

/** The document types of the database's CHECK (migration 0050): the table's (doc-types.ts). */
export type StoredDocType = DocType;

export const documents = pgTable(
  'documents',
  {
    id: text('id').primaryKey(),
    businessId: text('business_id').notNull(),
    status: text('status', { enum: DOCUMENT_STATUSES }).notNull(),
    docType: integer('doc_type').$type<StoredDocType>().notNull(),
    docNumber: int8('doc_number'),
    partyId: text('party_id'),
    party: jsonb('party').$type<DocumentParty>(),
    priceMode: text('price_mode', { enum: PRICE_MODES }).notNull().default('net'),
    lines: jsonb('lines').$type<DocumentLine[]>().notNull().default([]),
    payments: jsonb('payments').$type<DocumentPayment[]>().notNull().default([]),
    note: text('note'),
    documentDate: day('document_date').notNull(),
    valueDate: day('value_date').notNull(),
    /** A draft created without a date: issue dates it that day (migration 0033); until then it shows its creation day. */
    datedAtIssue: boolean('dated_at_issue').notNull().default(false),
    vatRateBp: integer('vat_rate_bp'),
    vatExemptionReason: text('vat_exemption_reason', { enum: VAT_EXEMPTION_REASONS }),
    discountAmount: int8('discount_amount').notNull().default(0),
    withholdingAmount: int8('withholding_amount').notNull().default(0),
    totalExVat: int8('total_ex_vat').notNull().default(0),
    vatAmount: int8('vat_amount').notNull().default(0),
    totalIncVat: int8('total_inc_vat').notNull().default(0),
    linkedDocumentId: text('linked_document_id'),
    externalRef: text('external_ref'),
    requestHash: text('request_hash'),
    allocationNumber: text('allocation_number'),
    allocation: jsonb('allocation').$type<AllocationState>(),
    warnings: jsonb('warnings').$type<DocumentWarning[]>().notNull().default([]),
    cancelledByDocumentId: text('cancelled_by_document_id'),
    /** Read through documentColumns (snapshot.ts): the PDFs' pdf_links rows; only rows published before migration 0040 hold them here. */
    pdfFiles: jsonb('pdf_files').$type<PdfFiles>(),
    originHandedOutAt: timestamptz3('origin_handed_out_at'),
    printCount: integer('print_count').notNull().default(0),
    snapshot: jsonb('snapshot').$type<DocumentSnapshot>(),
    issuedAt: timestamptz3('issued_at'),
    createdByKeyId: text('created_by_key_id'),
    createdAt: timestamptz3('created_at').notNull(),
    updatedAt: timestamptz3('updated_at').notNull(),
    metadata: metadataColumn(),
    currency: text('currency').notNull().default('ILS'),
    /** Shekels for one unit of the currency, decimal text (never a float); null for ILS. */
    exchangeRate: text('exchange_rate'),
    exchangeRateDate: day('exchange_rate_date'),
    exchangeRateSource: text('exchange_rate_source', { enum: EXCHANGE_RATE_SOURCES }),
    language: text('language', { enum: ['he', 'en', 'he+en'] })
      .notNull()
      .default('he'),
    /**
     * What `q` searches (migration 0024): the party's name and the lines' descriptions, lower-cased,
     * joined by newlines; null past 1,000 bytes. Computed by PostgreSQL on every write, never written.
     */
    searchText: text('search_text').generatedAlwaysAs(sql`public.documents_search_text_bounded(party, lines)`),
  },
  (t) => [
    uniqueIndex('documents_number')
      .on(t.businessId, t.docType, t.docNumber)
      .where(sql`doc_number IS NOT NULL`),
    uniqueIndex('documents_external_ref')
      .on(t.businessId, t.externalRef)
      .where(sql`external_ref IS NOT NULL`),
  ],
);
export type DocumentRow = typeof documents.$inferSelect;
export type NewDocumentRow = typeof documents.$inferInsert;

/** Issued documents per business and Israel calendar month (0010), for the monthly ceiling. */
export const documentMonthCounts = pgTable(
  'document_month_counts',
  {
    businessId: text('business_id').notNull(),
    month: day('month').notNull(),
    count: int8('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.businessId, t.month] })],
);
export type DocumentMonthCountRow = typeof documentMonthCounts.$inferSelect;

/** A quantity with D110/1264's four decimals, read as decimal text (never a float). */
const quantity4 = customType<{ data: string; driverData: string }>({ dataType: () => 'numeric(19,4)' });

/**
 * The quantities an issued converted document took of its sources' lines (migration 0051), one row per
 * converted line, written at its issue (conversion-issue.ts); append-only.
 */
export const documentSources = pgTable(
  'document_sources',
  {
    businessId: text('business_id').notNull(),
    documentId: text('document_id').notNull(),
    lineIndex: integer('line_index').notNull(),
    sourceId: text('source_id').notNull(),
    sourceLineIndex: integer('source_line_index').notNull(),
    stage: text('stage').$type<ConversionStage>().notNull(),
    /** Decimal text, four places (D110/1264). */
    quantity: quantity4('quantity').notNull(),
    createdAt: timestamptz3('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.documentId, t.lineIndex] }), index('document_sources_source').on(t.sourceId, t.stage, t.sourceLineIndex)],
);
