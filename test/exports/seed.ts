/**
 * Bulk-inserts issued 305 documents straight into the documents table (one INSERT … SELECT over
 * generate_series), for the 20k-document test and the 100k benchmark: issuing that many through the
 * API would measure the documents area, not the export. Snapshots follow DocumentSnapshot.
 */
import { sql } from 'drizzle-orm';
import type { Db, Executor } from '../../src/platform/db/engine.ts';

/**
 * As a restore does, behind the per-row triggers (session_replication_role = replica): the counter
 * jumps to the last number in one step, which the database refuses in an ordinary session.
 */
export async function seedIssuedInvoices(
  ex: Executor,
  a: { businessId: string; count: number; firstNumber: number; date: string; issuedAt: string; skus?: number },
): Promise<void> {
  await (ex as Db).transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL session_replication_role = replica`);
    await insertInvoices(tx, a);
  });
}

async function insertInvoices(
  ex: Executor,
  a: { businessId: string; count: number; firstNumber: number; date: string; issuedAt: string; skus?: number },
): Promise<void> {
  const skus = a.skus ?? 50;
  await ex.execute(sql`
    INSERT INTO documents(id, business_id, status, doc_type, doc_number, party, price_mode, lines, payments, document_date, value_date,
                          vat_rate_bp, discount_amount, withholding_amount, total_ex_vat, vat_amount, total_inc_vat, warnings,
                          snapshot, issued_at, created_at, updated_at)
    SELECT 'doc_seed' || lpad(n::text, 10, '0') || substr(md5(${a.businessId}::text), 1, 8), ${a.businessId}, 'issued', 305, n,
           party, 'net', jsonb_build_array(line), '[]'::jsonb, ${a.date}::date, ${a.date}::date,
           1800, 0, 0, net, vat, net + vat, '[]'::jsonb,
           jsonb_build_object(
             'docType', 305, 'docNumber', n, 'documentDate', ${a.date}::text, 'valueDate', ${a.date}::text, 'issuedAt', ${a.issuedAt}::text,
             'dealer', jsonb_build_object('name', 'עסק', 'taxId', '516179157', 'dealerType', 'company', 'address', null, 'phone', null, 'email', null),
             'branding', '{}'::jsonb, 'party', party, 'lines', jsonb_build_array(line), 'payments', '[]'::jsonb,
             'priceMode', 'net', 'vatRateBp', 1800, 'vatExemptionReason', null,
             'totals', jsonb_build_object('totalExVat', net, 'vatAmount', vat, 'totalIncVat', net + vat, 'discountAmount', 0, 'withholdingAmount', 0),
             'note', null, 'allocationNumber', null, 'linkedDocument', null),
           ${a.issuedAt}::timestamptz, ${a.issuedAt}::timestamptz, ${a.issuedAt}::timestamptz
    FROM (
      SELECT n, net, round(net * 0.18)::bigint AS vat,
             jsonb_build_object('partyId', null, 'key', 'C' || lpad((n % 997)::text, 5, '0'), 'name', 'לקוח מספר ' || (n % 997),
                                'taxId', null, 'phone', null, 'email', null, 'address', 'רחוב ' || (n % 31)) AS party,
             jsonb_build_object('description', 'פריט ' || (n % ${skus}::int), 'quantity', 1, 'unitPriceExVat', net, 'sku', 'SKU-' || (n % ${skus}::int),
                                'unit', 'יחידה', 'lineDiscount', 0, 'amount', net) AS line
      FROM (SELECT n, (10000 + n % 5000)::bigint AS net FROM generate_series(${a.firstNumber}::bigint, ${a.firstNumber + a.count - 1}::bigint) AS n) g
    ) s`);
  await ex.execute(sql`
    INSERT INTO document_counters(business_id, doc_type, start_number, last_number) VALUES (${a.businessId}, 305, 1, ${a.firstNumber + a.count - 1})
    ON CONFLICT (business_id, doc_type) DO UPDATE SET last_number = GREATEST(document_counters.last_number, EXCLUDED.last_number)`);
}
