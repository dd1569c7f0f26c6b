import type { Tx } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { nextNumberInSeries } from '../businesses/index.ts';
import type { DocType } from './snapshot.ts';
import { DOC_TYPES } from './doc-types.ts';

/**
 * Takes the next number of a document type's series (doc-types.ts `series`) inside the issuing
 * transaction (a credit note), refused when the series' latest document is dated after `documentDate`.
 */
export async function takeNextNumber(tx: Tx, businessId: string, docType: DocType, documentDate: string): Promise<number> {
  const r = await queryOne<{ last_number: number }>(tx, nextNumberInSeries(businessId, DOC_TYPES[docType].series, documentDate));
  return Number(r!.last_number);
}
