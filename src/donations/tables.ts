/** Typed definition of the donations domain's table (migration 0061): each 405's report to the digital donation system. */
import { pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz3 } from '../platform/db/tables.ts';
import { DONATION_REPORT_KINDS, DONATION_REPORT_STATUSES } from './lists.ts';

/** One row per reported document (a 405, or the negative 405 that cancels one); none yet: pending. */
export const donationReports = pgTable('donation_reports', {
  documentId: text('document_id').primaryKey(),
  businessId: text('business_id').notNull(),
  kind: text('kind', { enum: DONATION_REPORT_KINDS }).notNull(),
  status: text('status', { enum: DONATION_REPORT_STATUSES }).notNull(),
  reportNumber: text('report_number'),
  cancelsReportNumber: text('cancels_report_number'),
  error: text('error'),
  requestedAt: timestamptz3('requested_at').notNull(),
  decidedAt: timestamptz3('decided_at'),
  updatedAt: timestamptz3('updated_at').notNull(),
});
export type DonationReportRow = typeof donationReports.$inferSelect;
