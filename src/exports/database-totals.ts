/** The database's side of verification: counts and totals per doc type of the run's fixed set. */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import { docTypeIn } from '../documents/doc-type-sql.ts';
import type { DocTypeCheck } from './verify.ts';

const docType = sql`d.doc_type`;
/** The OPENFRMT rules of the types (doc-types.ts `openfrmt`) as conditions on d.doc_type. */
const is = {
  receipt: docTypeIn(docType, (r) => r.openfrmt.c100 === 'receipt'),
  positive: docTypeIn(docType, (r) => r.openfrmt.amounts === 'positive'),
  withholding: docTypeIn(docType, (r) => r.openfrmt.withholding1224),
  lines: docTypeIn(docType, (r) => r.openfrmt.d110),
  payments: docTypeIn(docType, (r) => r.openfrmt.d120),
  settlesLessWithholding: docTypeIn(docType, (r) => r.payments === 'settle-total-less-withholding'),
};
/** The same conditions on the documents row itself (inside the CTE). */
const rowIs = {
  lines: docTypeIn(sql`documents.doc_type`, (r) => r.openfrmt.d110),
  payments: docTypeIn(sql`documents.doc_type`, (r) => r.openfrmt.d120),
};

/** The database's own figures for the fixed set (same filter as the export, amounts per the C100 conventions). */
export async function databaseTotals(
  ex: Executor,
  businessId: string,
  { from, to, cutOff }: { from: string; to: string; cutOff: Date },
): Promise<Map<number, DocTypeCheck['database']>> {
  const rows = await query<Record<string, number>>(
    ex,
    // Shekel figures: a foreign-currency document's frozen `ils` totals (docs/currency.md), its
    // payments adding up to what they settle; a shekel document's own columns. The lines and payments are taken
    // out of the snapshot once each (lateral x; OFFSET 0 keeps the planner from folding them back into each use):
    // snapshots are stored compressed and every -> decompresses one again.
    sql`WITH d AS (
          SELECT doc_type, x.lines, x.payments,
                 CASE WHEN currency = 'ILS' THEN total_ex_vat ELSE (snapshot->'ils'->>'totalExVat')::bigint END AS total_ex_vat,
                 CASE WHEN currency = 'ILS' THEN vat_amount ELSE (snapshot->'ils'->>'vatAmount')::bigint END AS vat_amount,
                 CASE WHEN currency = 'ILS' THEN total_inc_vat ELSE (snapshot->'ils'->>'totalIncVat')::bigint END AS total_inc_vat,
                 CASE WHEN currency = 'ILS' THEN withholding_amount ELSE (snapshot->'ils'->>'withholdingAmount')::bigint END AS withholding_amount,
                 currency
            FROM documents
            CROSS JOIN LATERAL (SELECT CASE WHEN ${rowIs.lines} THEN documents.snapshot->'lines' END AS lines,
                                       CASE WHEN ${rowIs.payments} THEN documents.snapshot->'payments' END AS payments OFFSET 0) x
           WHERE business_id = ${businessId} AND status = 'issued' AND ${docTypeIn(sql`doc_type`, (r) => r.openfrmt.exported)}
             AND document_date BETWEEN ${from} AND ${to} AND issued_at <= ${cutOff.toISOString()})
        SELECT d.doc_type,
          count(*) AS count,
          sum(CASE WHEN ${is.receipt} THEN d.total_inc_vat WHEN ${is.positive} THEN abs(d.total_ex_vat) ELSE d.total_ex_vat END) AS ex_vat,
          sum(CASE WHEN ${is.receipt} THEN 0 WHEN ${is.positive} THEN abs(d.vat_amount) ELSE d.vat_amount END) AS vat,
          sum(CASE WHEN ${is.positive} THEN abs(d.total_inc_vat) ELSE d.total_inc_vat END) AS inc_vat,
          sum(CASE WHEN ${is.withholding} THEN d.withholding_amount ELSE 0 END) AS withholding,
          sum(CASE WHEN ${is.lines} THEN jsonb_array_length(d.lines) ELSE 0 END) AS lines,
          sum(CASE WHEN ${is.payments} THEN jsonb_array_length(d.payments) ELSE 0 END) AS payments,
          sum(CASE WHEN NOT ${is.payments} THEN 0
                   WHEN d.currency <> 'ILS' AND ${is.settlesLessWithholding} THEN d.total_inc_vat - d.withholding_amount
                   WHEN d.currency <> 'ILS' THEN d.total_inc_vat
                   ELSE (SELECT coalesce(sum((p->>'amount')::bigint), 0) FROM jsonb_array_elements(d.payments) p)
                   END) AS payments_total
        FROM d
        GROUP BY d.doc_type`,
  );
  return new Map(
    rows.map((r) => [
      Number(r.doc_type),
      {
        count: Number(r.count),
        exVat: Number(r.ex_vat),
        vat: Number(r.vat),
        incVat: Number(r.inc_vat),
        withholding: Number(r.withholding),
        lines: Number(r.lines),
        payments: Number(r.payments),
        paymentsTotal: Number(r.payments_total),
      },
    ]),
  );
}
