/**
 * The floor of pinkas's own SQL (issue 28): the statements one document costs the database, sent by
 * a client that does nothing else. Per document, as the server sends them: the draft's insert with its
 * audit row (one statement, answering the row's version) and `issue_document` with the number, ceilings, row,
 * journal entry, audit row, event, usage and jobs. The arguments are a document the server issued
 * during the run, with new ids: the same tables, indexes, triggers and functions, none of the server's
 * Node work (HTTP, validation, totals, the audit's canonical JSON). Against the server's figure it
 * shows what Node adds; against the bare floor, what the design's SQL weighs.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/** A text where HOLE stands for the number (what audit_append and journal_post fill in). */
const HOLE = '\u27e6n\u27e7';

interface Sample {
  row: Record<string, unknown>;
  columns: string[];
  journal: Record<string, unknown>;
  audit: Record<string, unknown>;
  accountId: string;
  businessVersion: Map<string, string>;
}

/** One document the server issued, its journal entry and its issue audit row: the floor's arguments. */
export async function readSample(db: pg.Pool, businessIds: string[]): Promise<Sample> {
  const doc = await db.query<{ row: Record<string, unknown> }>(
    `SELECT to_jsonb(d) - 'search_text' AS row FROM documents d WHERE business_id = $1 AND status = 'issued' ORDER BY doc_number LIMIT 1`,
    [businessIds[0]],
  );
  const row = doc.rows[0].row;
  const entry = await db.query(`SELECT * FROM journal_entries WHERE document_id = $1`, [row.id]);
  const lines = await db.query(
    `SELECT line_no AS n, account_code AS account, side, amount, currency, foreign_amount AS "foreign" FROM journal_lines WHERE entry_id = $1`,
    [entry.rows[0].id],
  );
  const accounts = await db.query(
    `SELECT code, name, kind, trial_balance_code, trial_balance_name, party_id FROM ledger_accounts WHERE business_id = $1 AND code = ANY($2)`,
    [row.business_id, lines.rows.map((l) => l.account)],
  );
  const audit = await db.query(`SELECT * FROM audit_log WHERE entity_id = $1 AND action = 'document.issue'`, [row.id]);
  const versions = await db.query<{ id: string; v: string; account_id: string }>(`SELECT id, xmin::text AS v, account_id FROM businesses WHERE id = ANY($1)`, [
    businessIds,
  ]);
  const e = entry.rows[0];
  return {
    row,
    columns: Object.keys(row),
    journal: {
      date: e.entry_date,
      source: e.source,
      referenceParts: e.reference === null ? null : String(e.reference).replace(String(row.doc_number), HOLE).split(HOLE),
      referenceDocType: e.reference_doc_type,
      descriptionParts: String(e.description).replace(String(row.doc_number), HOLE).split(HOLE),
      accounts: accounts.rows,
      lines: lines.rows,
    },
    audit: audit.rows[0],
    accountId: versions.rows[0].account_id,
    businessVersion: new Map(versions.rows.map((b) => [b.id, b.v])),
  };
}

/** The draft's insert and its audit row, one statement, as drafts.ts sends it. */
function draftStatement(s: Sample, id: string, businessId: string, at: string) {
  const row = { ...s.row, id, business_id: businessId, status: 'draft', doc_number: null, snapshot: null, issued_at: null, pdf_files: null };
  Object.assign(row, { external_ref: null, created_at: at, updated_at: at, allocation: null, warnings: [], print_count: 0, origin_handed_out_at: null });
  const cols = s.columns.map((c) => `"${c}"`).join(', ');
  const recorded = { ...(s.audit.after as Record<string, unknown>), id, businessId, status: 'draft', docNumber: null, issuedAt: null };
  const audit = {
    ...auditOf(s, { businessId, entityId: id, at, action: 'document.create' }),
    hashParts: [JSON.stringify({ after: recorded, before: null, id })],
  };
  return {
    text: `WITH inserted AS (INSERT INTO documents (${cols}) SELECT ${cols} FROM jsonb_populate_record(NULL::documents, $1::jsonb) RETURNING id)
           SELECT audit_append($2::jsonb, NULL) FROM inserted`,
    values: [JSON.stringify(row), JSON.stringify(audit)],
  };
}

function auditOf(s: Sample, { businessId, entityId, at, action }: { businessId: string; entityId: string; at: string; action: string }) {
  return {
    id: `aud_${randomUUID()}`,
    chain: `biz:${businessId}`,
    at,
    accountId: s.accountId,
    keyId: s.audit.key_id,
    businessId,
    action,
    entityType: 'document',
    entityId,
  };
}

/** issue_document's argument, as issue.ts builds it. */
function issueArgument(s: Sample, { id, businessId, version, at }: { id: string; businessId: string; version: string; at: string }) {
  const snapshot = s.row.snapshot as Record<string, unknown>;
  // What the server's audit row recorded of its document, for this one.
  const after = JSON.stringify({ ...(s.audit.after as Record<string, unknown>), id, businessId, docNumber: HOLE });
  const [head, tail] = after.split(`"${HOLE}"`);
  const future = new Date(Date.parse(at) + 86_400_000).toISOString();
  return {
    id,
    businessId,
    draftVersion: version,
    businessVersion: s.businessVersion.get(businessId),
    day: at.slice(0, 10),
    perDay: 1_000_000_000,
    month: `${at.slice(0, 8)}01`,
    perMonth: null,
    series: s.row.doc_type,
    snapshot: { ...snapshot, issuedAt: at },
    allocation: s.row.allocation,
    warnings: s.row.warnings,
    writes: {
      journal: { ...s.journal, id: `je_${randomUUID()}`, businessId, documentId: id, expenseId: null, reversesEntryId: null, keyId: s.audit.key_id, at },
      audit: { ...auditOf(s, { businessId, entityId: id, at, action: 'document.issue' }), hashParts: [`{"after":${head}`, `${tail},"before":null}`] },
      event: { id: `evt_${randomUUID()}`, event: 'document.issued', accountId: s.accountId, businessId, data: { documentId: id }, at },
      usage: { day: at.slice(0, 10), subject: `biz:${businessId}`, metric: 'documents_issued' },
      // Due tomorrow: the server's job runner leaves the floor's render jobs alone.
      jobs: [{ id: `job_${randomUUID()}`, kind: 'document.render', business_id: businessId, ref_id: id, at: future }],
    },
  };
}

/** One document's two statements, as the server sends them for a draft it created (documents/draft-cache.ts); answers its number. */
export async function floorDocument(db: pg.Pool, s: Sample, businessId: string): Promise<number> {
  const id = `doc_${randomUUID()}`;
  const at = new Date().toISOString();
  const draft = draftStatement(s, id, businessId, at);
  const inserted = await db.query<{ v: string }>({
    ...draft,
    text: draft.text.replace('RETURNING id)', 'RETURNING id, xmin::text AS v)').replace('SELECT audit_append', 'SELECT v, audit_append'),
  });
  const r = await db.query<{ outcome: string; doc_number: number }>(`SELECT outcome, doc_number FROM issue_document($1::jsonb)`, [
    JSON.stringify(issueArgument(s, { id, businessId, version: inserted.rows[0].v, at })),
  ]);
  if (r.rows[0].outcome !== 'issued') throw new Error(`floor: issue_document answered ${r.rows[0].outcome}`);
  return r.rows[0].doc_number;
}
