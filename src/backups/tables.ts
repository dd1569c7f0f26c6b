/** Typed definition of `backups` (migration 0007): write-once records of a business's backup zips. */
import { jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz3 } from '../platform/db/tables.ts';

export const backups = pgTable('backups', {
  id: text('id').primaryKey(),
  businessId: text('business_id').notNull(),
  fileId: text('file_id').notNull(),
  /** {format, tables: {name: rowCount}, files: n, sha256 of the manifest} */
  summary: jsonb('summary').notNull(),
  createdByKeyId: text('created_by_key_id'),
  createdAt: timestamptz3('created_at').notNull(),
});
export type BackupRow = typeof backups.$inferSelect;
export type NewBackupRow = typeof backups.$inferInsert;
