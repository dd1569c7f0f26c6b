/** Listing documents with every filter of the spec, and the numbering continuity report. */
import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import { afterCursor, cursorAtSql, decodeCursor, pageOf } from '../platform/http/cursor.ts';
import { documentColumns, documentView, toDocumentRow, type DocumentView } from './snapshot.ts';
import type { ListQueryInput } from './schemas.ts';
import { metadataCondition } from '../platform/metadata.ts';
import { DOC_TYPE_CODES, type DocType } from './doc-types.ts';
import { docTypeIn } from './doc-type-sql.ts';
import type { DocumentStatus } from './lists.ts';

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The WHERE conditions of a list other than `q` and `status` (the counts ignore the status). */
function filters(businessId: string, q: ListQueryInput): SQL[] {
  const where: SQL[] = [sql`business_id = ${businessId}`];
  if (q.docType !== undefined) where.push(sql`doc_type = ${q.docType}`);
  if (q.from) where.push(sql`document_date >= ${q.from}`);
  if (q.to) where.push(sql`document_date <= ${q.to}`);
  if (q.before) where.push(sql`created_at < ${q.before}`);
  if (q.externalRefPrefix) where.push(sql`external_ref LIKE ${likeEscape(q.externalRefPrefix) + '%'}`);
  if (q.partyId) where.push(sql`party_id = ${q.partyId}`);
  const byMetadata = metadataCondition(q.metadata);
  if (byMetadata) where.push(byMetadata);
  return where;
}

/**
 * Free text (`q`): a case-insensitive substring of the party's name or of a line's description; a
 * number also finds the document of that number. Three forms of that one condition:
 *  - `probe(id)`: for the newest rows, read from the index documents_list_search alone (migration
 *    0024): it uses only the index's columns, and reads the row `id` only where search_text is null;
 *  - `exact`: the same on the row;
 *  - `indexed`: `exact` behind the trigram index (issued documents), the index of drafts and
 *    documents_number, which find its rows (null when the text is under 3 characters: no trigram to look up).
 *
 * search_text is the name and the descriptions lower-cased and joined by newlines (null when longer
 * than 1,000 bytes): a text without a newline is a substring of one of them (ILIKE: lower(text) LIKE
 * lower(pattern)) exactly when it is a substring of search_text, so one LIKE on that short column is
 * the condition, with no case folding per row. A text with a newline could match across a
 * separator: there search_text only narrows, and the name and each description decide, as they do
 * where search_text is null.
 */
function textMatch(raw: string): { probe: (id: SQL) => SQL; exact: SQL; indexed: SQL | null } {
  const text = raw.trim();
  const pattern = `%${likeEscape(text)}%`;
  const walk = (row: SQL) =>
    sql`(coalesce(${row}party->>'name', '') ILIKE ${pattern} OR EXISTS (SELECT 1 FROM jsonb_array_elements(${row}lines) AS l WHERE l->>'description' ILIKE ${pattern}))`;
  const onRow = walk(sql``);
  const ofRow = (id: SQL) => sql`(SELECT ${walk(sql`x.`)} FROM documents x WHERE x.id = ${id})`;
  const inText = sql`search_text LIKE lower(${pattern}::text)`;
  const textOf = (fallback: SQL) =>
    text.includes('\n') ? sql`(coalesce(${inText}, true) AND ${fallback})` : sql`(CASE WHEN search_text IS NOT NULL THEN ${inText} ELSE ${fallback} END)`;
  // Written with every doc type so that the index documents_number (business, type, number) serves it.
  const numeric = /^\d{1,15}$/.test(text) ? sql`(${docTypeIn(sql`doc_type`, () => true)} AND doc_number = ${Number(text)})` : null;
  const or = (a: SQL, b: SQL | null) => (b ? sql`(${a} OR ${b})` : a);
  const exact = or(textOf(onRow), numeric);
  const trigrams =
    [...text].length >= 3 ? sql`public.text_trigrams(public.documents_search_text(party, lines)) @> public.text_trigrams(lower(${text}::text))` : null;
  // The trigram index holds issued documents (migration 0067): a business's drafts, few and found by the
  // index of drafts, are tested one by one. The statuses as literals, which the partial indexes match.
  const indexed = trigrams ? or(sql`((status = 'issued' AND ${trigrams} AND ${textOf(onRow)}) OR (status = 'draft' AND ${textOf(onRow)}))`, numeric) : null;
  return { probe: (id) => or(textOf(ofRow(id)), numeric), exact, indexed };
}

/**
 * The newest rows a search reads one by one before it turns to the trigram index. A text in at least
 * 1 document in 40 fills a page of 50 from the newest 2,000 (read from the index documents_list_search
 * alone: ~1 ms at a million documents). A rarer one is found by the trigram index, whose every
 * candidate row is read and sorted: cheap for a rare text, but a text in 1 document in 500 has
 * ~2,000 matches at a million (~20 ms, measured 2026-11-24 under load 7).
 */
export const SEARCH_PROBE_ROWS = 2000;

const and = (conditions: SQL[]) => sql.join(conditions, sql` AND `);

/**
 * The page's ids, newest first. Without `q`, one index range read newest-first (every filter has an
 * index ending with the order; `status=issued` reads documents_list_search, which carries the status,
 * and `status=draft` the index of drafts). With `q`, two phases in one statement:
 *  1. probe: the newest SEARCH_PROBE_ROWS rows of the other filters, newest-first, each tested with
 *     the exact condition. If they hold skip + take matches, or are all the rows there are, the page
 *     is theirs (the rows after them are older than every match found);
 *  2. otherwise (a text rare among the newest rows): every match, from the trigram index, sorted.
 *     A text under 3 characters has no trigram: the newest-first read goes on until the page fills.
 * Phase 2's branch has a one-time filter on the probe's verdict: it is not run when phase 1 decided.
 */
function pageIds(where: SQL[], q: ListQueryInput, { take, skip, probeRows }: { take: number; skip: number; probeRows: number }): SQL {
  const order = sql`ORDER BY created_at DESC, id DESC`;
  if (!q.q) return sql`SELECT id, created_at FROM documents WHERE ${and(where)} ${order} LIMIT ${take} OFFSET ${skip}`;
  const need = skip + take;
  // A deep page (skip) probes deeper, up to 10 times the default.
  const probe = Math.min(10 * probeRows, Math.max(probeRows, 2 * need));
  const { probe: probeMatch, indexed } = textMatch(q.q);
  const older = indexed
    ? // MATERIALIZED: every match first (the bitmap of the trigram index), then sorted; never a
      // newest-first scan that the planner might expect to stop early.
      sql`older AS MATERIALIZED (SELECT id, created_at FROM documents WHERE NOT (SELECT done FROM verdict) AND ${and(where)} AND ${indexed}),
          rest AS (SELECT id, created_at FROM older ${order} LIMIT ${need})`
    : sql`rest AS (SELECT id, created_at FROM documents WHERE NOT (SELECT done FROM verdict) AND ${and(where)} AND ${probeMatch(sql`documents.id`)} ${order} LIMIT ${need})`;
  // The probe's rows are read newest-first and tested one at a time until `need` match: a text in
  // most documents stops after about `need` rows. Only when fewer match is the window's size counted
  // (from the index alone; the second operand of OR is not evaluated when the first is true).
  const window = sql`SELECT * FROM documents WHERE ${and(where)} ${order} LIMIT ${probe}`;
  return sql`WITH hits AS MATERIALIZED (SELECT id, created_at FROM (${window}) AS newest WHERE ${probeMatch(sql`newest.id`)} ${order} LIMIT ${need}),
    verdict AS MATERIALIZED (SELECT (SELECT count(*) FROM hits) >= ${need}
      OR (SELECT count(*) FROM (SELECT 1 FROM documents WHERE ${and(where)} ${order} LIMIT ${probe}) AS w) < ${probe} AS done),
    ${older}
    SELECT id, created_at FROM (
      SELECT id, created_at FROM hits WHERE (SELECT done FROM verdict)
      UNION ALL
      SELECT id, created_at FROM rest) AS found
    ${order} LIMIT ${take} OFFSET ${skip}`;
}

export interface ListResult {
  documents: DocumentView[];
  /** The position after this page's last row; null on the last page. */
  nextCursor: string | null;
  counts?: { total: number; byStatus: { draft: number; issued: number } };
}

/** `probeRows`: phase 1's window for `q` (SEARCH_PROBE_ROWS; tests make it small to run phase 2 on small books). */
export async function listDocuments(ex: Executor, businessId: string, q: ListQueryInput, opts: { probeRows?: number } = {}): Promise<ListResult> {
  const base = filters(businessId, q);
  // The status as a literal: a list of drafts is read from the index of drafts alone (documents_list_drafts,
  // migration 0062), whose predicate the planner matches against a constant, not a parameter.
  const where = q.status ? [...base, q.status === 'draft' ? sql`status = 'draft'` : sql`status = 'issued'`] : [...base];
  // The cursor is paging, not a filter: it narrows the page, never the counts. Its condition starts
  // with `created_at <=`, a bound of the same index range as `before`.
  if (q.cursor) where.push(afterCursor(decodeCursor('documents', q.cursor)));
  const take = q.take ?? 200;
  // One row more than the page: whether a next page exists, without a count.
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT ${documentColumns('d')}, ${cursorAtSql(sql`page.created_at`)} AS cursor_at FROM (${pageIds(where, q, { take: take + 1, skip: q.skip ?? 0, probeRows: opts.probeRows ?? SEARCH_PROBE_ROWS })}) AS page
        JOIN documents d ON d.id = page.id
        ORDER BY page.created_at DESC, page.id DESC`,
  );
  const { page, nextCursor } = pageOf('documents', rows, take, (r) => ({ createdAt: String(r.cursor_at), id: String(r.id) }));
  const result: ListResult = { documents: page.map((r) => documentView(toDocumentRow(r))), nextCursor };
  if (q.counts === '1') {
    const text = q.q ? textMatch(q.q) : null;
    const counted = text ? [...base, text.indexed ?? text.exact] : base;
    const counts = await query<{ status: string; n: number }>(ex, sql`SELECT status, count(*)::int AS n FROM documents WHERE ${and(counted)} GROUP BY status`);
    const byStatus = { draft: 0, issued: 0 };
    for (const c of counts) byStatus[c.status as DocumentStatus] = Number(c.n);
    result.counts = { total: byStatus.draft + byStatus.issued, byStatus };
  }
  return result;
}

export interface ContinuityEntry {
  docType: DocType;
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
export function continuityOf(docType: DocType, numbers: number[], series: SeriesCounter): ContinuityEntry {
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
export async function continuityReport(ex: Executor, businessId: string, docType?: DocType) {
  const types = docType ? [docType] : [...DOC_TYPE_CODES];
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
