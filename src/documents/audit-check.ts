/**
 * The documents' part of `audit verify`: every issued document must still say what the audit trail
 * recorded when it was issued, and its frozen snapshot must agree with its columns.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import { canonicalJson } from '../platform/canonical-json.ts';
import { plain, verifyAuditChains, type ChainCheck } from '../platform/audit.ts';
import { documentView, toDocumentRow, type DocumentRow } from './snapshot.ts';

// The audit actions whose `after` is the Document JSON at issue (src/documents/issue.ts afterIssue),
// 'document.issue' and 'document.credit_note', are written as literals in the query below: the partial
// index audit_log_document_issue (migration 0009) serves exactly that predicate.

/**
 * The fields of the Document JSON that never change after issue. The others (allocation,
 * allocationNumber, warnings, cancelledByDocumentId, files, printCount) move on legitimately.
 */
const FROZEN_VIEW_FIELDS = [
  'id',
  'businessId',
  'status',
  'docType',
  'docNumber',
  'party',
  'priceMode',
  'lines',
  'payments',
  'note',
  'documentDate',
  'valueDate',
  'vatRateBp',
  'vatExemptionReason',
  'totalExVat',
  'vatAmount',
  'totalIncVat',
  'discountAmount',
  'withholdingAmount',
  'linkedDocumentId',
  'externalRef',
  'issuedAt',
  'createdAt',
] as const;

/** The canonical JSON of the frozen fields of a Document JSON. */
function frozenPart(view: Record<string, unknown>): string {
  const out: Record<string, unknown> = {};
  for (const k of FROZEN_VIEW_FIELDS) out[k] = view[k] ?? null;
  return canonicalJson(out);
}

const sameNumber = (a: unknown, b: unknown) => (a === null || a === undefined ? b === null || b === undefined : Number(a) === Number(b));

/** The fields in which an issued row's frozen snapshot and its columns disagree. */
function snapshotMismatches(row: DocumentRow): string[] {
  const snap = row.snapshot;
  if (!snap) return [];
  const t = snap.totals ?? ({} as Record<string, unknown>);
  const mismatched = [
    ['docType', snap.docType, row.docType],
    ['docNumber', snap.docNumber, row.docNumber],
    ['vatRateBp', snap.vatRateBp, row.vatRateBp],
    ['totalExVat', t.totalExVat, row.totalExVat],
    ['vatAmount', t.vatAmount, row.vatAmount],
    ['totalIncVat', t.totalIncVat, row.totalIncVat],
    ['discountAmount', t.discountAmount, row.discountAmount],
    ['withholdingAmount', t.withholdingAmount, row.withholdingAmount],
  ]
    .filter(([, a, b]) => !sameNumber(a, b))
    .map(([k]) => k as string);
  for (const [k, a, b] of [
    ['documentDate', snap.documentDate, row.documentDate],
    ['valueDate', snap.valueDate, row.valueDate],
    ['issuedAt', snap.issuedAt, row.issuedAt],
    ['priceMode', snap.priceMode, row.priceMode],
  ] as const) {
    if (a !== b) mismatched.push(k);
  }
  return mismatched;
}

/** One issued row (joined with its issue audit row): its snapshot against its columns, then against what the audit recorded. */
function checkIssuedRow(r: Record<string, unknown>, result: ChainCheck): void {
  const documentId = String(r.id);
  const chain = `biz:${String(r.business_id)}`;
  const report = (problem: string, seq: number | null = null) =>
    result.problems.push({ chain: 'documents', seq, documentId, problem: `issued document ${documentId} (${chain}): ${problem}` });
  const row = toDocumentRow(r);
  const mismatched = snapshotMismatches(row);
  if (mismatched.length > 0) report(`its snapshot and its columns disagree (${mismatched.join(', ')})`);
  if (r.issue_after === null || r.issue_after === undefined) {
    report('no document.issue or document.credit_note audit row records it');
    return;
  }
  const seq = Number(r.issue_seq);
  const recorded = (typeof r.issue_after === 'string' ? JSON.parse(r.issue_after) : r.issue_after) as Record<string, unknown>;
  const now = plain(documentView(row)) as Record<string, unknown>;
  if (frozenPart(now) !== frozenPart(recorded)) {
    const differ = FROZEN_VIEW_FIELDS.filter((k) => canonicalJson(now[k] ?? null) !== canonicalJson(recorded[k] ?? null));
    report(`differs from what its issue audit row (${String(r.issue_chain)} #${seq}) recorded (${differ.join(', ')})`, seq);
  }
}

/**
 * Every issued document must still say what the audit trail recorded when it was issued (the
 * `after` of its document.issue / document.credit_note row, itself protected by the hash chain),
 * and its frozen snapshot must agree with the row's columns. A difference means the row was
 * changed behind the triggers' back (disabled, or a replica-mode session).
 */
export async function checkIssuedDocuments(ex: Executor, result: ChainCheck, businessId: string | null | undefined): Promise<void> {
  if (businessId === null) return;
  let afterId = '';
  for (;;) {
    const rows = await query<Record<string, unknown>>(
      ex,
      sql`SELECT d.*, a.after AS issue_after, a.seq AS issue_seq, a.chain AS issue_chain
            FROM documents d
            LEFT JOIN LATERAL (
              SELECT l.after, l.seq, l.chain FROM audit_log l
               WHERE l.entity_type = 'document' AND l.entity_id = d.id AND l.action IN ('document.issue', 'document.credit_note')
               ORDER BY l.seq LIMIT 1) a ON true
           WHERE d.status = 'issued' AND d.id > ${afterId}
             AND (${businessId ?? null}::text IS NULL OR d.business_id = ${businessId ?? null})
           ORDER BY d.id LIMIT 500`,
    );
    if (rows.length === 0) break;
    for (const r of rows) {
      result.documents++;
      afterId = String(r.id);
      checkIssuedRow(r, result);
    }
  }
}

/** The whole `audit verify`: the chains and triggers (platform), then the issued documents. */
export function verifyBooks(ex: Executor, onlyChain?: string): Promise<ChainCheck> {
  return verifyAuditChains(ex, onlyChain, [checkIssuedDocuments]);
}
