import { sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import type { DocType } from './snapshot.ts';
import { DOC_TYPES } from './doc-types.ts';

/**
 * The upsert that takes the next number of the series of a document type (doc-types.ts `series`:
 * the counter row keyed by business and doc_type), `RETURNING last_number`.
 * The counter row is locked by it until the transaction ends, so concurrent issuers of one series
 * queue on it; a rollback (or a killed process) gives the number back. Never a sequence: sequences
 * are not transactional and would leave gaps.
 */
export function nextNumberUpsert(businessId: string, docType: DocType): SQL {
  return sql`INSERT INTO document_counters(business_id, doc_type, start_number, last_number) VALUES (${businessId}, ${DOC_TYPES[docType].series}, 1, 1)
      ON CONFLICT (business_id, doc_type)
      DO UPDATE SET last_number = coalesce(document_counters.last_number, document_counters.start_number - 1) + 1
      RETURNING last_number`;
}

/** Takes the next number of a series inside the issuing transaction (see nextNumberUpsert). */
export async function takeNextNumber(tx: Tx, businessId: string, docType: DocType): Promise<number> {
  const r = await queryOne<{ last_number: number }>(tx, nextNumberUpsert(businessId, docType));
  return Number(r!.last_number);
}
