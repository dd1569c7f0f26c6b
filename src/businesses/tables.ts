/**
 * Typed definitions of `businesses` (migrations 0001, 0018, 0019, 0022, 0060) and of its numbering series
 * (`document_counters`, 0001), written by the businesses domain (businesses/numbering.ts).
 */
import { boolean, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { day, int8, metadataColumn, timestamptz3 } from '../platform/db/tables.ts';
import { DEALER_TYPES } from './dealer-types.ts';
import { BOOKKEEPING_KINDS, VAT_REPORTING_PERIODS, type BrandingTemplate } from './lists.ts';
import { APPROVAL_STATUSES } from '../accounts/index.ts';

/** A business's branding as stored in its jsonb column (a missing key reads as empty). */
export interface StoredBranding {
  logoRef: { fileId: string; sha256: string; mime: string } | null;
  accentColor: string | null;
  tagline: string | null;
  website: string | null;
  footerText: string | null;
  template: BrandingTemplate;
}

export const businesses = pgTable('businesses', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  createdByKeyId: text('created_by_key_id').notNull(),
  name: text('name').notNull(),
  taxId: text('tax_id').notNull(),
  dealerType: text('dealer_type', { enum: DEALER_TYPES }).notNull(),
  address: text('address'),
  phone: text('phone'),
  email: text('email'),
  defaultVatRateBp: integer('default_vat_rate_bp'),
  requireAllocation: boolean('require_allocation').notNull().default(false),
  branding: jsonb('branding').$type<Partial<StoredBranding>>().notNull().default({}),
  approvalStatus: text('approval_status', { enum: APPROVAL_STATUSES }).notNull().default('approved'),
  planKey: text('plan_key'),
  deactivatedAt: timestamptz3('deactivated_at'),
  createdAt: timestamptz3('created_at').notNull(),
  updatedAt: timestamptz3('updated_at').notNull(),
  /** Null follows the dealer type (double for company and ngo). */
  bookkeeping: text('bookkeeping', { enum: BOOKKEEPING_KINDS }),
  metadata: metadataColumn(),
  vatReportingPeriod: text('vat_reporting_period', { enum: VAT_REPORTING_PERIODS }).notNull().default('monthly'),
  /** The section 46 approval of an ngo (migration 0060): all three or none. */
  section46ApprovalNumber: text('section46_approval_number'),
  section46ValidFrom: day('section46_valid_from'),
  section46ValidTo: day('section46_valid_to'),
});
export type BusinessRow = typeof businesses.$inferSelect;
export type NewBusinessRow = typeof businesses.$inferInsert;

/**
 * The numbering series of each business: one row per series (`doc_type` holds the series, doc-types.ts
 * `series`), `start_number` set at creation or before the first issue, `last_number` null until then.
 */
export const documentCounters = pgTable(
  'document_counters',
  {
    businessId: text('business_id').notNull(),
    docType: integer('doc_type').notNull(),
    startNumber: int8('start_number').notNull().default(1),
    lastNumber: int8('last_number'),
  },
  (t) => [primaryKey({ columns: [t.businessId, t.docType] })],
);
export type DocumentCounterRow = typeof documentCounters.$inferSelect;
