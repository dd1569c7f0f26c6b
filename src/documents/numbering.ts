import type { SQL } from 'drizzle-orm';
import type { Tx } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { nextNumberInSeries } from '../businesses/index.ts';
import type { DocType } from './snapshot.ts';
import { DOC_TYPES } from './doc-types.ts';

/** The upsert that takes the next number of a document type's series (doc-types.ts `series`; businesses/numbering.ts). */
export function nextNumberUpsert(businessId: string, docType: DocType): SQL {
  return nextNumberInSeries(businessId, DOC_TYPES[docType].series);
}

/** Takes the next number of a series inside the issuing transaction (see nextNumberUpsert). */
export async function takeNextNumber(tx: Tx, businessId: string, docType: DocType): Promise<number> {
  const r = await queryOne<{ last_number: number }>(tx, nextNumberUpsert(businessId, docType));
  return Number(r!.last_number);
}
