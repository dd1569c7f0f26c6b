/** Typed definitions of the books (migrations 0015, 0016, 0021), written by the ledger domain only. */
import { sql } from 'drizzle-orm';
import { integer, pgTable, primaryKey, smallint, text, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { day, int8, timestamptz3, xid8 } from '../platform/db/tables.ts';
import { ACCOUNT_KINDS, ENTRY_SOURCES } from './lists.ts';

export const ledgerAccounts = pgTable(
  'ledger_accounts',
  {
    businessId: text('business_id').notNull(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    kind: text('kind', { enum: ACCOUNT_KINDS }).notNull(),
    /** B110 field 1406 and its description. */
    trialBalanceCode: text('trial_balance_code').notNull(),
    trialBalanceName: text('trial_balance_name').notNull(),
    /** Set for the sub-account of a saved party. */
    partyId: text('party_id'),
    closedAt: timestamptz3('closed_at'),
    createdAt: timestamptz3('created_at').notNull(),
    updatedAt: timestamptz3('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.businessId, t.code] })],
);
export type LedgerAccountRow = typeof ledgerAccounts.$inferSelect;
export type NewLedgerAccountRow = typeof ledgerAccounts.$inferInsert;

export const ledgerCounters = pgTable('ledger_counters', {
  businessId: text('business_id').primaryKey(),
  lastEntryNo: int8('last_entry_no').notNull(),
});
export type LedgerCounterRow = typeof ledgerCounters.$inferSelect;

export const journalEntries = pgTable(
  'journal_entries',
  {
    id: text('id').primaryKey(),
    businessId: text('business_id').notNull(),
    entryNo: int8('entry_no').notNull(),
    entryDate: day('entry_date').notNull(),
    source: text('source', { enum: ENTRY_SOURCES }).notNull(),
    documentId: text('document_id'),
    expenseId: text('expense_id'),
    /** B100 1357–1358: the document it comes from. */
    reference: text('reference'),
    referenceDocType: integer('reference_doc_type'),
    description: text('description').notNull(),
    reversesEntryId: text('reverses_entry_id'),
    createdByKeyId: text('created_by_key_id'),
    createdAt: timestamptz3('created_at').notNull(),
    /** The writing transaction (set by trigger): lines may be added in it only. */
    writtenXact: xid8('written_xact')
      .notNull()
      .default(sql`pg_current_xact_id()`),
  },
  (t) => [
    unique('journal_entries_business_id_entry_no_key').on(t.businessId, t.entryNo),
    uniqueIndex('journal_entries_document')
      .on(t.documentId)
      .where(sql`document_id IS NOT NULL`),
    uniqueIndex('journal_entries_reverses')
      .on(t.reversesEntryId)
      .where(sql`reverses_entry_id IS NOT NULL`),
    uniqueIndex('journal_entries_expense')
      .on(t.expenseId)
      .where(sql`expense_id IS NOT NULL`),
  ],
);
export type JournalEntryRow = typeof journalEntries.$inferSelect;
export type NewJournalEntryRow = typeof journalEntries.$inferInsert;

export const journalLines = pgTable(
  'journal_lines',
  {
    entryId: text('entry_id').notNull(),
    lineNo: integer('line_no').notNull(),
    businessId: text('business_id').notNull(),
    accountCode: text('account_code').notNull(),
    /** B100 1366: 1 debit, 2 credit; the amount is positive. */
    side: smallint('side').$type<1 | 2>().notNull(),
    amount: int8('amount').notNull(),
    /** B100 1367 and 1369: set (both) on a foreign-currency fact's line, null for shekels. */
    currency: text('currency'),
    foreignAmount: int8('foreign_amount'),
  },
  (t) => [primaryKey({ columns: [t.entryId, t.lineNo] })],
);
export type JournalLineRow = typeof journalLines.$inferSelect;
export type NewJournalLineRow = typeof journalLines.$inferInsert;

/** Closed months of the books; a close is never undone. */
export const ledgerPeriods = pgTable(
  'ledger_periods',
  {
    businessId: text('business_id').notNull(),
    /** The first day of the closed month. */
    period: day('period').notNull(),
    closedAt: timestamptz3('closed_at').notNull(),
    closedByKeyId: text('closed_by_key_id'),
    /** Set once, when the month is reopened (only the last closed one may be); the month is closed while a row of it is not reopened. */
    reopenedAt: timestamptz3('reopened_at'),
    reopenedByKeyId: text('reopened_by_key_id'),
    reopenReason: text('reopen_reason'),
  },
  (t) => [
    primaryKey({ columns: [t.businessId, t.period, t.closedAt] }),
    uniqueIndex('ledger_periods_closed')
      .on(t.businessId, t.period)
      .where(sql`reopened_at IS NULL`),
  ],
);
export type LedgerPeriodRow = typeof ledgerPeriods.$inferSelect;
export type NewLedgerPeriodRow = typeof ledgerPeriods.$inferInsert;
