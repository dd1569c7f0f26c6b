import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { conflict } from '../platform/errors.ts';

/**
 * A business's numbering series (document_counters, one row per series): where each starts, set by
 * the business (at creation or before the series' first issue), and how far it has gone, moved by
 * issuing documents (documents/numbering.ts) through nextNumberInSeries.
 */

/** Sets where series start (`numbering`: series → first number); refused for a series already issued from. */
export async function setNumbering(tx: Executor, businessId: string, numbering: Record<string, number | undefined> | undefined): Promise<void> {
  if (!numbering) return;
  for (const [docType, start] of Object.entries(numbering)) {
    if (start === undefined) continue;
    const row = await queryOne<{ last_number: number | null }>(
      tx,
      sql`SELECT last_number FROM document_counters WHERE business_id = ${businessId} AND doc_type = ${Number(docType)} FOR UPDATE`,
    );
    if (row && row.last_number !== null) {
      throw conflict(`numbering.${docType}: documents of type ${docType} were already issued; the series cannot be restarted`);
    }
    await tx.execute(
      sql`INSERT INTO document_counters(business_id, doc_type, start_number) VALUES (${businessId}, ${Number(docType)}, ${start})
          ON CONFLICT (business_id, doc_type) DO UPDATE SET start_number = EXCLUDED.start_number`,
    );
  }
}

/**
 * The statement that takes the next number of a series dated `documentDate` (migration 0033
 * next_number, which issue_document calls too: refused with PK003 when the series' latest document is
 * dated after it), `AS last_number`.
 */
export function nextNumberInSeries(businessId: string, series: number, documentDate: string): SQL {
  return sql`SELECT next_number(${businessId}, ${series}, ${documentDate}::date) AS last_number`;
}
