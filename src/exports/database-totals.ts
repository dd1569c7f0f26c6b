/** The database's side of verification: counts and totals per doc type of the run's fixed set. */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import type { DocTypeCheck } from './verify.ts';

/** The database's own figures for the fixed set (same filter as the export, amounts per the C100 conventions). */
export async function databaseTotals(ex: Executor, businessId: string, from: string, to: string, cutOff: Date): Promise<Map<number, DocTypeCheck['database']>> {
  const rows = await query<Record<string, number>>(
    ex,
    // Shekel figures: a foreign-currency document's frozen `ils` totals (docs/currency.md), its
    // payments adding up to what they settle; a shekel document's own columns.
    sql`WITH d AS (
          SELECT doc_type, snapshot,
                 CASE WHEN currency = 'ILS' THEN total_ex_vat ELSE (snapshot->'ils'->>'totalExVat')::bigint END AS total_ex_vat,
                 CASE WHEN currency = 'ILS' THEN vat_amount ELSE (snapshot->'ils'->>'vatAmount')::bigint END AS vat_amount,
                 CASE WHEN currency = 'ILS' THEN total_inc_vat ELSE (snapshot->'ils'->>'totalIncVat')::bigint END AS total_inc_vat,
                 CASE WHEN currency = 'ILS' THEN withholding_amount ELSE (snapshot->'ils'->>'withholdingAmount')::bigint END AS withholding_amount,
                 currency
            FROM documents
           WHERE business_id = ${businessId} AND status = 'issued'
             AND document_date BETWEEN ${from} AND ${to} AND issued_at <= ${cutOff.toISOString()})
        SELECT d.doc_type,
          count(*) AS count,
          sum(CASE WHEN d.doc_type = 400 THEN d.total_inc_vat WHEN d.doc_type = 330 THEN abs(d.total_ex_vat) ELSE d.total_ex_vat END) AS ex_vat,
          sum(CASE WHEN d.doc_type = 400 THEN 0 WHEN d.doc_type = 330 THEN abs(d.vat_amount) ELSE d.vat_amount END) AS vat,
          sum(CASE WHEN d.doc_type = 330 THEN abs(d.total_inc_vat) ELSE d.total_inc_vat END) AS inc_vat,
          sum(CASE WHEN d.doc_type IN (320, 400) THEN d.withholding_amount ELSE 0 END) AS withholding,
          sum(CASE WHEN d.doc_type IN (305, 320, 330) THEN jsonb_array_length(d.snapshot->'lines') ELSE 0 END) AS lines,
          sum(CASE WHEN d.doc_type IN (320, 400) THEN jsonb_array_length(d.snapshot->'payments') ELSE 0 END) AS payments,
          sum(CASE WHEN d.doc_type NOT IN (320, 400) THEN 0
                   WHEN d.currency <> 'ILS' AND d.doc_type = 320 THEN d.total_inc_vat - d.withholding_amount
                   WHEN d.currency <> 'ILS' THEN d.total_inc_vat
                   ELSE (SELECT coalesce(sum((p->>'amount')::bigint), 0) FROM jsonb_array_elements(d.snapshot->'payments') p)
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
