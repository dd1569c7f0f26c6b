/**
 * The database side of conversions (issue 30): what each stage of a source has taken, the check at
 * issue under the source's row lock, the rows an issued converted document writes, and `convertedTo`.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import { conflict } from '../platform/errors.ts';
import type { ConversionStage, DocType } from './doc-types.ts';
import { conversionRefusal, quantitiesFrom, stageOf } from './conversion.ts';
import { quantityOfTenThousandths, quantityTenThousandths } from '../platform/money.ts';
import type { DocumentRow } from './snapshot.ts';
import type { DocumentLine } from './snapshot-types.ts';

/** The quantity (ten-thousandths) of each of the source's lines its issued conversions of `stage` took. */
export async function takenInStage(ex: Executor, source: { id: string; lineCount: number }, stage: ConversionStage): Promise<number[]> {
  const rows = await query<{ i: number; q: string }>(
    ex,
    sql`SELECT source_line_index AS i, sum(quantity)::text AS q FROM document_sources
        WHERE source_id = ${source.id} AND stage = ${stage} GROUP BY source_line_index`,
  );
  const taken = new Array<number>(source.lineCount).fill(0);
  for (const r of rows) if (Number(r.i) < source.lineCount) taken[Number(r.i)] = quantityTenThousandths(Number(r.q));
  return taken;
}

/** The issued documents converted from this one, by type and number. */
export async function convertedToOf(ex: Executor, businessId: string, id: string): Promise<{ id: string; docType: DocType; docNumber: number }[]> {
  const rows = await query<{ id: string; doc_type: number; doc_number: number }>(
    ex,
    sql`SELECT d.id, d.doc_type, d.doc_number FROM documents d
        WHERE d.business_id = ${businessId}
          AND d.id IN (SELECT document_id FROM document_sources WHERE source_id = ${id} AND business_id = ${businessId})
        ORDER BY d.doc_type, d.doc_number`,
  );
  return rows.map((r) => ({ id: r.id, docType: Number(r.doc_type) as DocType, docNumber: Number(r.doc_number) }));
}

const sourceIdsOf = (lines: readonly DocumentLine[]) => [...new Set(lines.flatMap((l) => (l.source ? [l.source.documentId] : [])))].sort();

/** Whether a draft's lines came from other documents (its issue then checks and records them). */
export const isConverted = (d: Pick<DocumentRow, 'lines'>) => d.lines.some((l) => l.source);

/**
 * At issue, in the issue's transaction: locks the sources' rows (in id order, so two issues never wait
 * for each other crosswise) and refuses, 409 `conflict`, a source that is not an issued document of the
 * business, a conversion its type does not make, or quantities beyond what its other issued conversions
 * of the stage left. Racing issues of one source are checked one after the other.
 */
export async function checkSourcesUnderLock(tx: Executor, businessId: string, target: Pick<DocumentRow, 'docType' | 'lines'>): Promise<void> {
  const ids = sourceIdsOf(target.lines);
  const stage = stageOf(target.docType);
  const sources = await query<{ id: string; status: string; doc_type: number; doc_number: number | null; lines: DocumentLine[] | string }>(
    tx,
    sql`SELECT id, status, doc_type, doc_number, lines FROM documents
        WHERE business_id = ${businessId} AND id IN ${ids} ORDER BY id FOR UPDATE`,
  );
  for (const id of ids) {
    const s = sources.find((x) => x.id === id);
    if (!s || s.status !== 'issued') throw conflict(`the source document ${id} is not an issued document of this business`);
    const refusal = conversionRefusal(Number(s.doc_type) as DocType, target.docType);
    if (refusal) throw conflict(refusal);
    const lines = (typeof s.lines === 'string' ? JSON.parse(s.lines) : s.lines) as DocumentLine[];
    const taken = await takenInStage(tx, { id, lineCount: lines.length }, stage);
    const asked = quantitiesFrom(id, lines.length, target.lines);
    lines.forEach((l, i) => {
      if (asked[i] > 0 && taken[i] + asked[i] > quantityTenThousandths(l.quantity)) {
        const left = quantityOfTenThousandths(Math.max(quantityTenThousandths(l.quantity) - taken[i], 0));
        throw conflict(
          `${s.doc_type} #${s.doc_number} line ${i} ("${l.description}"): ${left} of its ${l.quantity} are left at this stage (${stage}), this ${target.docType} takes ${quantityOfTenThousandths(asked[i])}`,
        );
      }
    });
  }
}

/** The rows of an issued converted document (its lines that name a source). */
export async function recordSources(tx: Executor, businessId: string, target: Pick<DocumentRow, 'id' | 'docType' | 'lines'>, at: Date): Promise<void> {
  const stage = stageOf(target.docType);
  const rows = target.lines.flatMap((l, i) =>
    l.source
      ? [
          {
            line_index: i,
            source_id: l.source.documentId,
            source_line_index: l.source.index,
            quantity: quantityOfTenThousandths(quantityTenThousandths(l.quantity)).toFixed(4),
          },
        ]
      : [],
  );
  await tx.execute(
    sql`INSERT INTO document_sources(business_id, document_id, line_index, source_id, source_line_index, stage, quantity, created_at)
        SELECT ${businessId}, ${target.id}, x.line_index, x.source_id, x.source_line_index, ${stage}, x.quantity, ${at.toISOString()}
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(line_index integer, source_id text, source_line_index integer, quantity numeric)`,
  );
}
