/**
 * Management reports, computed in SQL over issued documents (by document date) and recorded
 * expenses (by supplier document date). Amounts are agorot. Credit notes (330, stored positive)
 * count negatively; negative receipts and storno expense rows are already negative.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query, queryOne } from '../platform/db/sql.ts';
import { checkDateRange } from '../platform/http/formats.ts';
import { categoryOf } from '../expenses/categories.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { docTypeIn } from '../documents/index.ts';
import { DOC_TYPE_RULES } from '../documents/doc-types.ts';
import { validation } from '../platform/errors.ts';
import { parseVatPeriod, ledgerVatReport, type LedgerVatReport } from '../vat/index.ts';

export interface Range {
  from: string;
  to: string;
}

export function checkRange(r: Range): void {
  checkDateRange(r, 'querystring');
}

/** Exempt dealers (patur, ngo) issue only receipts: their receipts are their income. */
const exemptDealer = (b: BusinessRecord) => b.dealerType === 'patur' || b.dealerType === 'ngo';

export interface IncomeRow {
  month: string;
  docType: number;
  count: number;
  amountExVat: number;
  vatAmount: number;
}

/** One type's issued documents of the range: how many, and their total (the summary counts every type). */
export interface DocTypeCount {
  docType: number;
  taxDocument: boolean;
  count: number;
  totalIncVat: number;
}

export interface ExpenseRow {
  category: string;
  nameHe: string | null;
  count: number;
  amountExVat: number;
  vatAmount: number;
  deductibleVat: number;
}

export interface SummaryReport {
  from: string;
  to: string;
  currency: 'ILS';
  income: { byMonth: IncomeRow[]; totalExVat: number };
  outputVat: number;
  receipts: { count: number; total: number };
  documents: { byDocType: DocTypeCount[] };
  expenses: { byCategory: ExpenseRow[]; totalExVat: number };
  inputVat: number;
  profit: number;
}

/**
 * The documents with their totals in shekels: a foreign-currency document's frozen `ils` figures
 * (docs/currency.md), a shekel document's own columns. A plain subquery: PostgreSQL inlines it, so
 * the filters below still use the documents' indexes.
 */
const DOCUMENTS_IN_SHEKELS = sql`(SELECT business_id, status, document_date, doc_type, vat_rate_bp, currency,
    CASE WHEN currency = 'ILS' THEN total_ex_vat ELSE (snapshot->'ils'->>'totalExVat')::bigint END AS total_ex_vat,
    CASE WHEN currency = 'ILS' THEN vat_amount ELSE (snapshot->'ils'->>'vatAmount')::bigint END AS vat_amount,
    CASE WHEN currency = 'ILS' THEN total_inc_vat ELSE (snapshot->'ils'->>'totalIncVat')::bigint END AS total_inc_vat
  FROM documents) AS documents`;

/** A credit note's amounts count against income; a receipt's income is the amount received, without VAT. */
const MIRRORED = docTypeIn(sql`doc_type`, (t) => t.journal.invoice === -1);
const RECEIVED = docTypeIn(sql`doc_type`, (t) => t.totalsFrom === 'payments');

async function income(ex: Executor, b: BusinessRecord, r: Range): Promise<IncomeRow[]> {
  // An exempt dealer's income is what it received (receipts); a licensed dealer's, what it invoiced.
  const types = exemptDealer(b) ? docTypeIn(sql`doc_type`, (t) => t.totalsFrom === 'payments') : docTypeIn(sql`doc_type`, (t) => t.journal.invoice !== 0);
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT to_char(document_date, 'YYYY-MM') AS month, doc_type, count(*) AS n,
               sum(CASE WHEN ${MIRRORED} THEN -abs(total_ex_vat) WHEN ${RECEIVED} THEN total_inc_vat ELSE total_ex_vat END) AS ex_vat,
               sum(CASE WHEN ${MIRRORED} THEN -abs(vat_amount) WHEN ${RECEIVED} THEN 0 ELSE vat_amount END) AS vat
        FROM ${DOCUMENTS_IN_SHEKELS}
        WHERE business_id = ${b.id} AND status = 'issued' AND document_date BETWEEN ${r.from} AND ${r.to} AND ${types}
        GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  return rows.map((x) => ({
    month: String(x.month),
    docType: Number(x.doc_type),
    count: Number(x.n),
    amountExVat: Number(x.ex_vat),
    vatAmount: Number(x.vat),
  }));
}

/** Every type of the table with its count and total in the range, zeros included; a credit note counts negative. */
async function countsByDocType(ex: Executor, b: BusinessRecord, r: Range): Promise<DocTypeCount[]> {
  const rows = await query<{ doc_type: number; n: number; total: number }>(
    ex,
    sql`SELECT doc_type, count(*) AS n, sum(CASE WHEN ${MIRRORED} THEN -abs(total_inc_vat) ELSE total_inc_vat END) AS total
        FROM ${DOCUMENTS_IN_SHEKELS}
        WHERE business_id = ${b.id} AND status = 'issued' AND document_date BETWEEN ${r.from} AND ${r.to}
        GROUP BY doc_type`,
  );
  const found = new Map(rows.map((x) => [Number(x.doc_type), x]));
  return DOC_TYPE_RULES.map((t) => {
    const x = found.get(t.code);
    return { docType: t.code, taxDocument: t.taxDocument, count: Number(x?.n ?? 0), totalIncVat: Number(x?.total ?? 0) };
  });
}

async function expenses(ex: Executor, b: BusinessRecord, r: Range): Promise<ExpenseRow[]> {
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT category_key, count(*) AS n, sum(amount_ex_vat) AS ex_vat, sum(vat_amount) AS vat, sum(deductible_vat) AS deductible
        FROM expenses
        WHERE business_id = ${b.id} AND status = 'recorded' AND supplier_doc_date BETWEEN ${r.from} AND ${r.to}
        GROUP BY category_key ORDER BY category_key`,
  );
  return rows.map((x) => ({
    category: String(x.category_key),
    nameHe: categoryOf(String(x.category_key))?.nameHe ?? null,
    count: Number(x.n),
    amountExVat: Number(x.ex_vat),
    vatAmount: Number(x.vat),
    deductibleVat: Number(x.deductible),
  }));
}

export async function summaryReport(ex: Executor, b: BusinessRecord, r: Range): Promise<SummaryReport> {
  checkRange(r);
  const byMonth = await income(ex, b, r);
  const byCategory = await expenses(ex, b, r);
  const byDocType = await countsByDocType(ex, b, r);
  const receipts = await queryOne<{ n: number; total: number | null }>(
    ex,
    sql`SELECT count(*) AS n, sum(total_inc_vat) AS total FROM ${DOCUMENTS_IN_SHEKELS}
        WHERE business_id = ${b.id} AND status = 'issued' AND doc_type = 400 AND document_date BETWEEN ${r.from} AND ${r.to}`,
  );
  const incomeTotal = byMonth.reduce((s, x) => s + x.amountExVat, 0);
  const expenseTotal = byCategory.reduce((s, x) => s + x.amountExVat, 0);
  return {
    from: r.from,
    to: r.to,
    currency: 'ILS',
    income: { byMonth, totalExVat: incomeTotal },
    outputVat: byMonth.reduce((s, x) => s + x.vatAmount, 0),
    receipts: { count: Number(receipts?.n ?? 0), total: Number(receipts?.total ?? 0) },
    documents: { byDocType },
    expenses: { byCategory, totalExVat: expenseTotal },
    inputVat: byCategory.reduce((s, x) => s + x.deductibleVat, 0),
    profit: incomeTotal - expenseTotal,
  };
}

export interface VatReport {
  from: string;
  to: string;
  currency: 'ILS';
  /** Sales carrying VAT (ex VAT) and the VAT on them (עסקאות חייבות, מע"מ עסקאות). */
  taxableSales: number;
  outputVat: number;
  /** Sales at 0% (Eilat, export) or exempt (עסקאות בשיעור אפס / פטורות). */
  zeroRatedOrExemptSales: number;
  /** Deductible input VAT on equipment / fixed assets (תשומות ציוד) and on everything else (תשומות אחרות). */
  fixedAssetInputVat: number;
  otherInputVat: number;
  inputVat: number;
  /** outputVat − inputVat: positive to pay, negative to be refunded. */
  vatPayable: number;
  documents: number;
  expenses: number;
}

export async function vatReport(ex: Executor, b: BusinessRecord, r: Range): Promise<VatReport> {
  checkRange(r);
  const sales = await queryOne<Record<string, unknown>>(
    ex,
    sql`SELECT count(*) AS n,
          coalesce(sum(CASE WHEN vat_rate_bp > 0 THEN (CASE WHEN doc_type = 330 THEN -abs(total_ex_vat) ELSE total_ex_vat END) END), 0) AS taxable,
          coalesce(sum(CASE WHEN doc_type = 330 THEN -abs(vat_amount) ELSE vat_amount END), 0) AS vat,
          coalesce(sum(CASE WHEN vat_rate_bp = 0 THEN (CASE WHEN doc_type = 330 THEN -abs(total_ex_vat) ELSE total_ex_vat END) END), 0) AS zero
        FROM ${DOCUMENTS_IN_SHEKELS}
        WHERE business_id = ${b.id} AND status = 'issued' AND doc_type IN (305, 320, 330) AND document_date BETWEEN ${r.from} AND ${r.to}`,
  );
  const inputs = await queryOne<Record<string, unknown>>(
    ex,
    sql`SELECT count(*) AS n,
          coalesce(sum(CASE WHEN category_key = 'equipment' THEN deductible_vat END), 0) AS fixed,
          coalesce(sum(CASE WHEN category_key <> 'equipment' THEN deductible_vat END), 0) AS other
        FROM expenses
        WHERE business_id = ${b.id} AND status = 'recorded' AND supplier_doc_date BETWEEN ${r.from} AND ${r.to}`,
  );
  const outputVat = Number(sales!.vat);
  const fixedAssetInputVat = Number(inputs!.fixed);
  const otherInputVat = Number(inputs!.other);
  const inputVat = fixedAssetInputVat + otherInputVat;
  return {
    from: r.from,
    to: r.to,
    currency: 'ILS',
    taxableSales: Number(sales!.taxable),
    outputVat,
    zeroRatedOrExemptSales: Number(sales!.zero),
    fixedAssetInputVat,
    otherInputVat,
    inputVat,
    vatPayable: outputVat - inputVat,
    documents: Number(sales!.n),
    expenses: Number(inputs!.n),
  };
}

/**
 * `GET reports/vat`: with `period` the VAT report of that period from the ledger (src/vat/report.ts);
 * with `from` and `to` the management figures above, from documents and expenses. Never both.
 */
export async function vatReportOf(ex: Executor, b: BusinessRecord, q: { period?: string; from?: string; to?: string }): Promise<VatReport | LedgerVatReport> {
  if (q.period !== undefined) {
    if (q.from !== undefined || q.to !== undefined) throw validation('querystring.period', 'give either period or from and to, not both');
    return ledgerVatReport(ex, b.id, parseVatPeriod(q.period, 'querystring.period'));
  }
  if (q.from === undefined || q.to === undefined)
    throw validation('querystring', 'give period=YYYY-MM (or YYYY-MM/YYYY-MM for two months), or both from and to');
  return vatReport(ex, b, { from: q.from, to: q.to });
}
