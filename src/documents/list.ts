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
  /** Smallest stored issued number, or null when none is stored. */
  first: number | null;
  /** Largest stored issued number, or null when none is stored. */
  last: number | null;
  /** Stored issued documents of the type. */
  count: number;
  /** The series' own first number: 1, or the number the business chose to start at. */
  expectedFirst: number;
  /** The last number the counter handed out, or null when the series has handed out none. */
  counter: number | null;
  /**
   * Numbers of the series (expectedFirst..counter) with no stored document, ascending, at most
   * MAX_LISTED: a missing start, holes, and numbers handed out after the last stored one.
   */
  gaps: number[];
  /** How many numbers are missing in all (gaps lists the first MAX_LISTED of them). */
  gapCount: number;
  /** Numbers stored more than once. */
  duplicates: number[];
  /** Stored numbers the series never handed out: below expectedFirst or above the counter. */
  outOfSeries: number[];
}

export const MAX_LISTED = 1000;

/** Where a series starts and how far its counter has gone (document_counters). */
export interface SeriesCounter {
  /** start_number: the first number of the series. */
  startNumber: number;
  /** last_number: the last number handed out; null before the first issue. */
  lastNumber: number | null;
}

/**
 * The continuity of one series. Pure. The series is every number from the start number through the
 * counter: each must be stored exactly once. A number of the series with no stored document is a
 * gap (first, middle or last: the counter is the evidence that it was handed out); a number stored
 * twice is a duplicate; a stored number outside the series (below the start, or beyond what the
 * counter handed out) is out of series. Work is bounded by the stored numbers, not by the counter.
 */
export function continuityOf(docType: number, numbers: number[], series: SeriesCounter): ContinuityEntry {
  const sorted = [...numbers].sort((a, b) => a - b);
  const expectedFirst = series.startNumber;
  const counter = series.lastNumber;
  // The expected series is expectedFirst..counter; empty before the first issue.
  const expectedLast = counter ?? expectedFirst - 1;
  const gaps: number[] = [];
  const duplicates: number[] = [];
  const outOfSeries: number[] = [];
  let inSeries = 0;
  let next = expectedFirst; // the next number of the series not yet seen stored
  const listGaps = (upTo: number) => {
    for (let n = next; n <= upTo && gaps.length < MAX_LISTED; n++) gaps.push(n);
  };
  for (let i = 0; i < sorted.length; i++) {
    const n = sorted[i];
    if (i > 0 && n === sorted[i - 1]) {
      if (duplicates[duplicates.length - 1] !== n && duplicates.length < MAX_LISTED) duplicates.push(n);
      continue;
    }
    if (n < expectedFirst || n > expectedLast) {
      if (outOfSeries.length < MAX_LISTED) outOfSeries.push(n);
      continue;
    }
    listGaps(n - 1);
    inSeries++;
    next = n + 1;
  }
  listGaps(expectedLast);
  const gapCount = Math.max(0, expectedLast - expectedFirst + 1) - inSeries;
  return {
    docType,
    first: sorted.length ? sorted[0] : null,
    last: sorted.length ? sorted[sorted.length - 1] : null,
    count: sorted.length,
    expectedFirst,
    counter,
    gaps,
    gapCount,
    duplicates,
    outOfSeries,
  };
}

export const continuityOk = (e: ContinuityEntry) => e.gapCount === 0 && e.duplicates.length === 0 && e.outOfSeries.length === 0;

/**
 * The continuity of each series: the stored issued documents against the series' start number and
 * its counter (document_counters). One statement reads both, so the report is one snapshot: an
 * issue committing meanwhile cannot show as a gap (counter read later) or as out of series
 * (documents read later). A type with no counter row starts at 1 and has handed out nothing.
 * `ok` is true when no series has a gap, a duplicate or a number out of series.
 */
export async function continuityReport(ex: Executor, businessId: string, docType?: number) {
  const types = docType ? [docType] : [305, 320, 330, 400];
  const rows = await query<{ doc_type: number; kind: 'counter' | 'document'; a: number; b: number | null }>(
    ex,
    sql`SELECT doc_type, 'counter' AS kind, start_number AS a, last_number AS b
          FROM document_counters WHERE business_id = ${businessId} AND doc_type IN ${types}
        UNION ALL
        SELECT doc_type, 'document' AS kind, doc_number AS a, NULL::bigint AS b
          FROM documents WHERE business_id = ${businessId} AND doc_type IN ${types} AND status = 'issued'`,
  );
  const counters = new Map<number, SeriesCounter>();
  const numbers = new Map<number, number[]>(types.map((t) => [t, []]));
  for (const r of rows) {
    const t = Number(r.doc_type);
    if (r.kind === 'counter') counters.set(t, { startNumber: Number(r.a), lastNumber: r.b === null ? null : Number(r.b) });
    else numbers.get(t)!.push(Number(r.a));
  }
  const byDocType = types.map((t) => continuityOf(t, numbers.get(t)!, counters.get(t) ?? { startNumber: 1, lastNumber: null }));
  return { byDocType, ok: byDocType.every(continuityOk) };
}
