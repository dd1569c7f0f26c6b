import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, isoOrNull, query, queryOne } from '../platform/db/sql.ts';
import { notFound } from '../platform/errors.ts';
import { afterCursor, cursorAtSql, decodeCursor, pageOf } from '../platform/http/cursor.ts';
import { metadataCondition, metadataOf } from '../platform/metadata.ts';
import type { ExpenseView, ListQueryValue } from './schemas.ts';
import type { ExpenseStatus } from './lists.ts';

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/**
 * The columns every reader selects: `date` values are parsed differently by the two drivers
 * (local vs UTC midnight), so the supplier document date is also read as text.
 */
export const EXPENSE_COLUMNS = sql.raw('*, supplier_doc_date::text AS supplier_doc_date_text');

export function toExpense(r: Record<string, unknown>): ExpenseView {
  return {
    id: String(r.id),
    businessId: String(r.business_id),
    status: r.status as ExpenseView['status'],
    source: String(r.source),
    categoryKey: strOrNull(r.category_key),
    supplierName: strOrNull(r.supplier_name),
    supplierTaxId: strOrNull(r.supplier_tax_id),
    partyId: strOrNull(r.party_id),
    supplierDocType: strOrNull(r.supplier_doc_type) as ExpenseView['supplierDocType'],
    supplierDocNumber: strOrNull(r.supplier_doc_number),
    supplierDocDate: strOrNull(r.supplier_doc_date_text),
    allocationNumber: strOrNull(r.allocation_number),
    amountExVat: num(r.amount_ex_vat),
    vatAmount: num(r.vat_amount),
    amountIncVat: num(r.amount_inc_vat),
    deductibleVat: num(r.deductible_vat),
    warnings: ((r.warnings as ExpenseView['warnings'] | null) ?? []).map((w) => ({ code: String(w.code), message: String(w.message) })),
    note: strOrNull(r.note),
    receiptFileId: strOrNull(r.receipt_file_id),
    ocrExtraction: r.ocr_extraction ?? null,
    reversesExpenseId: strOrNull(r.reverses_expense_id),
    reversedByExpenseId: strOrNull(r.reversed_by_expense_id),
    externalRef: strOrNull(r.external_ref),
    metadata: metadataOf(r.metadata),
    recordedAt: isoOrNull(r.recorded_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

/** The row as stored (snake case), for writers that need request_hash and the like. */
export async function expenseRow(ex: Executor, businessId: string, id: string, forUpdate = false): Promise<Record<string, unknown>> {
  const r = await queryOne<Record<string, unknown>>(
    ex,
    forUpdate
      ? sql`SELECT ${EXPENSE_COLUMNS} FROM expenses WHERE id = ${id} AND business_id = ${businessId} FOR UPDATE`
      : sql`SELECT ${EXPENSE_COLUMNS} FROM expenses WHERE id = ${id} AND business_id = ${businessId}`,
  );
  if (!r) throw notFound('expense');
  return r;
}

export async function getExpense(ex: Executor, businessId: string, id: string): Promise<ExpenseView> {
  return toExpense(await expenseRow(ex, businessId, id));
}

function where(businessId: string, q: ListQueryValue, withStatus: boolean): SQL {
  const parts: SQL[] = [sql`business_id = ${businessId}`];
  if (withStatus && q.status) parts.push(sql`status = ${q.status}`);
  if (q.categoryKey) parts.push(sql`category_key = ${q.categoryKey}`);
  const byMetadata = metadataCondition(q.metadata);
  if (byMetadata) parts.push(byMetadata);
  if (q.from) parts.push(sql`supplier_doc_date >= ${q.from}::date`);
  if (q.to) parts.push(sql`supplier_doc_date <= ${q.to}::date`);
  if (q.q) {
    const like = `%${q.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    parts.push(sql`(supplier_name ILIKE ${like} OR supplier_doc_number = ${q.q.trim()})`);
  }
  return sql.join(parts, sql` AND `);
}

/**
 * Newest first, in the order (created_at, id). `cursor` answers the rows after a page's last row
 * (the way to page); `before` keeps rows created strictly before that instant (the older time
 * cursor); `skip`/`take` page within. `counts` are over the same filters minus status and paging.
 */
export async function listExpenses(
  ex: Executor,
  businessId: string,
  q: ListQueryValue,
): Promise<{ expenses: ExpenseView[]; nextCursor: string | null; counts?: { total: number; byStatus: { draft: number; recorded: number } } }> {
  const before = q.before ? sql` AND created_at < ${q.before}::timestamptz` : sql``;
  const after = q.cursor ? sql` AND ${afterCursor(decodeCursor('expenses', q.cursor))}` : sql``;
  const take = q.take ?? 200;
  // One row more than the page: whether a next page exists.
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT ${EXPENSE_COLUMNS}, ${cursorAtSql()} AS cursor_at FROM expenses WHERE ${where(businessId, q, true)}${before}${after}
        ORDER BY created_at DESC, id DESC LIMIT ${take + 1} OFFSET ${q.skip ?? 0}`,
  );
  const { page, nextCursor } = pageOf('expenses', rows, take, (r) => ({ createdAt: String(r.cursor_at), id: String(r.id) }));
  const out: Awaited<ReturnType<typeof listExpenses>> = { expenses: page.map(toExpense), nextCursor };
  if (q.counts === '1') {
    const byStatus = { draft: 0, recorded: 0 };
    const counted = await query<{ status: ExpenseStatus; n: number }>(
      ex,
      sql`SELECT status, count(*)::int AS n FROM expenses WHERE ${where(businessId, q, false)} GROUP BY status`,
    );
    for (const c of counted) byStatus[c.status] = Number(c.n);
    out.counts = { total: byStatus.draft + byStatus.recorded, byStatus };
  }
  return out;
}

/** The expense (not a storno row) that holds this receipt file, newest first: upload dedup. */
export async function expenseHoldingFile(ex: Executor, businessId: string, fileId: string): Promise<ExpenseView | undefined> {
  const r = await queryOne<Record<string, unknown>>(
    ex,
    sql`SELECT ${EXPENSE_COLUMNS} FROM expenses WHERE business_id = ${businessId} AND receipt_file_id = ${fileId} AND source <> 'reversal'
        ORDER BY created_at DESC, id DESC LIMIT 1`,
  );
  return r ? toExpense(r) : undefined;
}
