import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import type { AllocationState, DocumentWarning } from './snapshot-types.ts';

/** What the allocation flow writes on a document: its state, the warnings it shows, when. */
interface AllocationWrite {
  allocation: AllocationState;
  warnings: DocumentWarning[];
  at: Date;
}

/**
 * A draft's allocation, asked for before issue (allocation/draft-request.ts): the number (or none,
 * when refused) replaces the one it had. Written only while the document is still a draft.
 */
export async function writeDraftAllocation(tx: Executor, documentId: string, number: string | null, w: AllocationWrite): Promise<void> {
  await tx.execute(
    sql`UPDATE documents SET allocation_number = ${number}, allocation = ${JSON.stringify(w.allocation)}::jsonb,
          warnings = ${JSON.stringify(w.warnings)}::jsonb, updated_at = ${w.at.toISOString()}
        WHERE id = ${documentId} AND status = 'draft'`,
  );
}

/**
 * An issued document's allocation state (the job's answer, or a retry asked for): the columns the
 * immutability trigger leaves open. A number once granted is kept (`granted` fills it when empty).
 */
export async function writeIssuedAllocation(tx: Executor, documentId: string, granted: string | null, w: AllocationWrite): Promise<void> {
  await tx.execute(
    sql`UPDATE documents SET allocation = ${JSON.stringify(w.allocation)}::jsonb, warnings = ${JSON.stringify(w.warnings)}::jsonb,
          allocation_number = COALESCE(allocation_number, ${granted}), updated_at = ${w.at.toISOString()}
        WHERE id = ${documentId}`,
  );
}
