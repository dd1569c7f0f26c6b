import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';

/**
 * What printing writes on an issued document (the columns the immutability trigger leaves open),
 * called by src/prints: the count of prints with the one hand-out of the origin (the rendered files are
 * attached by publish_pdfs, migration 0029).
 */

/** Counts a print of the origin when it was never handed out; false when it was (then only a copy may go). */
export async function claimOriginPrint(tx: Executor, documentId: string, at: Date): Promise<boolean> {
  const claimed = await queryOne(
    tx,
    sql`UPDATE documents SET origin_handed_out_at = ${at.toISOString()}, print_count = print_count + 1, updated_at = ${at.toISOString()}
        WHERE id = ${documentId} AND origin_handed_out_at IS NULL RETURNING id`,
  );
  return claimed !== undefined;
}

/** Counts a print of the copy. */
export async function countCopyPrint(tx: Executor, documentId: string, at: Date): Promise<void> {
  await tx.execute(sql`UPDATE documents SET print_count = print_count + 1, updated_at = ${at.toISOString()} WHERE id = ${documentId}`);
}
