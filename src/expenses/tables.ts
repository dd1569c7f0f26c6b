/** Typed definitions of `expenses` (migrations 0004, 0019, 0031) and `supplier_payments` (0039), written by the expenses domain. */
import { sql } from 'drizzle-orm';
import { jsonb, pgTable, smallint, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { day, int8, metadataColumn, timestamptz3 } from '../platform/db/tables.ts';
import type { ExpenseWarning } from './input-vat.ts';
import { EXPENSE_SOURCES, EXPENSE_STATUSES, SUPPLIER_DOC_TYPES } from './lists.ts';

export const expenses = pgTable(
  'expenses',
  {
    id: text('id').primaryKey(),
    businessId: text('business_id').notNull(),
    status: text('status', { enum: EXPENSE_STATUSES }).notNull(),
    source: text('source', { enum: EXPENSE_SOURCES }).notNull(),
    categoryKey: text('category_key'),
    supplierName: text('supplier_name'),
    supplierTaxId: text('supplier_tax_id'),
    partyId: text('party_id'),
    supplierDocType: text('supplier_doc_type', { enum: SUPPLIER_DOC_TYPES }),
    supplierDocNumber: text('supplier_doc_number'),
    supplierDocDate: day('supplier_doc_date'),
    allocationNumber: text('allocation_number'),
    amountExVat: int8('amount_ex_vat'),
    vatAmount: int8('vat_amount'),
    amountIncVat: int8('amount_inc_vat'),
    deductibleVat: int8('deductible_vat'),
    /** What recording found (migration 0031): e.g. input VAT waiting for an allocation number. */
    warnings: jsonb('warnings').$type<ExpenseWarning[]>().notNull().default([]),
    note: text('note'),
    receiptFileId: text('receipt_file_id'),
    ocrExtraction: jsonb('ocr_extraction'),
    reversesExpenseId: text('reverses_expense_id').unique('expenses_reverses_expense_id_key'),
    reversedByExpenseId: text('reversed_by_expense_id').unique('expenses_reversed_by_expense_id_key'),
    externalRef: text('external_ref'),
    requestHash: text('request_hash'),
    createdByKeyId: text('created_by_key_id'),
    recordedAt: timestamptz3('recorded_at'),
    createdAt: timestamptz3('created_at').notNull(),
    updatedAt: timestamptz3('updated_at').notNull(),
    metadata: metadataColumn(),
  },
  (t) => [
    uniqueIndex('expenses_external_ref')
      .on(t.businessId, t.externalRef)
      .where(sql`external_ref IS NOT NULL`),
  ],
);
export type ExpenseRow = typeof expenses.$inferSelect;
export type NewExpenseRow = typeof expenses.$inferInsert;

/** Payments to suppliers (migration 0039): each with its journal entry, never changed. */
export const supplierPayments = pgTable('supplier_payments', {
  id: text('id').primaryKey(),
  businessId: text('business_id').notNull(),
  paymentDate: day('payment_date').notNull(),
  /** The payment method code (decisions.md "Money and tax"). */
  method: smallint('method').notNull(),
  amount: int8('amount').notNull(),
  expenseId: text('expense_id'),
  partyId: text('party_id'),
  /** The accounts of its entry: the supplier's (debited) and cash or the bank (credited). */
  supplierAccount: text('supplier_account').notNull(),
  paidFromAccount: text('paid_from_account').notNull(),
  reference: text('reference'),
  note: text('note'),
  journalEntryId: text('journal_entry_id').notNull().unique('supplier_payments_journal_entry_id_key'),
  createdByKeyId: text('created_by_key_id'),
  createdAt: timestamptz3('created_at').notNull(),
});
export type SupplierPaymentRow = typeof supplierPayments.$inferSelect;
