/**
 * Typed definition of `export_runs` (migrations 0007, 0017). The exports domain owns it; a PCN874
 * run (kind 'pcn874') is written by src/vat through the same table.
 */
import { jsonb, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { day, timestamptz3 } from '../platform/db/tables.ts';
import { EXPORT_KINDS, EXPORT_STATUSES } from './lists.ts';

export const exportRuns = pgTable(
  'export_runs',
  {
    id: text('id').primaryKey(),
    businessId: text('business_id').notNull(),
    kind: text('kind', { enum: EXPORT_KINDS }).notNull().default('openfrmt'),
    fromDate: day('from_date').notNull(),
    toDate: day('to_date').notNull(),
    status: text('status', { enum: EXPORT_STATUSES }).notNull(),
    /** The fixed set: documents issued up to this instant. */
    cutOffAt: timestamptz3('cut_off_at').notNull(),
    productionAt: timestamptz3('production_at').notNull(),
    directory: text('directory').notNull(),
    /** OPENFRMT only (15 digits); null on a PCN874 run. */
    primaryId: text('primary_id'),
    recordCounts: jsonb('record_counts'),
    fileId: text('file_id'),
    verification: jsonb('verification'),
    report: jsonb('report'),
    error: text('error'),
    createdByKeyId: text('created_by_key_id'),
    createdAt: timestamptz3('created_at').notNull(),
    completedAt: timestamptz3('completed_at'),
  },
  (t) => [unique('export_runs_business_id_directory_key').on(t.businessId, t.directory)],
);
export type ExportRunRow = typeof exportRuns.$inferSelect;
export type NewExportRunRow = typeof exportRuns.$inferInsert;
