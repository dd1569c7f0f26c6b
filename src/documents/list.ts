/** Listing documents with every filter of the spec, and the numbering continuity report. */
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import { documentView, toDocumentRow, type DocumentView } from './snapshot.ts';
import type { ListQueryInput } from './schemas.ts';

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The WHERE conditions of a list, without `status` (the counts ignore it). */
function filters(businessId: string, q: ListQueryInput): SQL[] {
  const where: SQL[] = [sql`business_id = ${businessId}`];
  if (q.docType !== undefined) where.push(sql`doc_type = ${q.docType}`);
  if (q.from) where.push(sql`document_date >= ${q.from}`);
  if (q.to) where.push(sql`document_date <= ${q.to}`);
  if (q.before) where.push(sql`created_at < ${q.before}`);
  if (q.externalRefPrefix) where.push(sql`external_ref LIKE ${likeEscape(q.externalRefPrefix) + '%'}`);
  if (q.partyId) where.push(sql`party_id = ${q.partyId}`);
  if (q.q) {
    const text = q.q.trim();
    const pattern = `%${likeEscape(text)}%`;
    const alternatives: SQL[] = [
      sql`coalesce(party->>'name', '') ILIKE ${pattern}`,
      sql`EXISTS (SELECT 1 FROM jsonb_array_elements(lines) AS l WHERE l->>'description' ILIKE ${pattern})`,
    ];
    if (/^\d{1,15}$/.test(text)) alternatives.push(sql`doc_number = ${Number(text)}`);
    where.push(sql`(${sql.join(alternatives, sql` OR `)})`);
  }
  return where;
}

export interface ListResult {
  documents: DocumentView[];
  counts?: { total: number; byStatus: { draft: number; issued: number } };
}

export async function listDocuments(ex: Executor, businessId: string, q: ListQueryInput): Promise<ListResult> {
  const base = filters(businessId, q);
  const where = q.status ? [...base, sql`status = ${q.status}`] : base;
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT * FROM documents WHERE ${sql.join(where, sql` AND `)}
        ORDER BY created_at DESC, id DESC LIMIT ${q.take ?? 200} OFFSET ${q.skip ?? 0}`,
  );
  const result: ListResult = { documents: rows.map((r) => documentView(toDocumentRow(r))) };
  if (q.counts === '1') {
    const counts = await query<{ status: string; n: number }>(
      ex,
      sql`SELECT status, count(*)::int AS n FROM documents WHERE ${sql.join(base, sql` AND `)} GROUP BY status`,
    );
    const byStatus = { draft: 0, issued: 0 };
    for (const c of counts) byStatus[c.status as 'draft' | 'issued'] = Number(c.n);
    result.counts = { total: byStatus.draft + byStatus.issued, byStatus };
  }
  return result;
}

export interface ContinuityEntry {
  docType: number;
  first: number | null;
  last: number | null;
  count: number;
  /** Numbers missing between first and last (at most MAX_LISTED). */
  gaps: number[];
  /** Numbers stored more than once. */
  duplicates: number[];
}

export const MAX_LISTED = 1000;

/** Gaps and duplicates of a sorted list of numbers. Pure. */
export function continuityOf(docType: number, numbers: number[]): ContinuityEntry {
  const sorted = [...numbers].sort((a, b) => a - b);
  const gaps: number[] = [];
  const duplicates: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1];
    const cur = sorted[i];
    if (cur === prev) {
      if (duplicates[duplicates.length - 1] !== cur && duplicates.length < MAX_LISTED) duplicates.push(cur);
    } else {
      for (let n = prev + 1; n < cur && gaps.length < MAX_LISTED; n++) gaps.push(n);
    }
  }
  return {
    docType,
    first: sorted.length ? sorted[0] : null,
    last: sorted.length ? sorted[sorted.length - 1] : null,
    count: sorted.length,
    gaps,
    duplicates,
  };
}

/**
 * The continuity of each series, from the stored issued rows (not from the counter): first, last,
 * count, gaps and duplicates. `ok` is true when no series has a gap or a duplicate.
 */
export async function continuityReport(ex: Executor, businessId: string, docType?: number) {
  const types = docType ? [docType] : [305, 320, 330, 400];
  const byDocType: ContinuityEntry[] = [];
  for (const t of types) {
    const rows = await query<{ doc_number: number }>(
      ex,
      sql`SELECT doc_number FROM documents WHERE business_id = ${businessId} AND doc_type = ${t} AND status = 'issued' ORDER BY doc_number`,
    );
    byDocType.push(continuityOf(t, rows.map((r) => Number(r.doc_number))));
  }
  const ok = byDocType.every((e) => e.gaps.length === 0 && e.duplicates.length === 0);
  return { byDocType, ok };
}
