import { createHash, randomBytes } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { Db, Executor } from './db/engine.ts';
import { iso, query, withWrites } from './db/sql.ts';
import { canonicalJson } from './canonical-json.ts';
import { newId } from './ids.ts';
import type { AuditAction } from './catalog/audit-actions.ts';

/** Who made a write: an API key, the console (account only) or the operator CLI (neither). */
export interface Actor {
  accountId: string | null;
  keyId: string | null;
}

export interface AuditEntry {
  businessId?: string | null;
  /** One of the catalog (catalog/audit-actions.ts). */
  action: AuditAction;
  entityType: string;
  entityId: string;
  before?: unknown;
  after?: unknown;
}

const GENESIS = '0'.repeat(64);

interface HashedFields {
  id: string;
  chain: string;
  at: string;
  accountId: string | null;
  keyId: string | null;
  businessId: string | null;
  action: string;
  entityType: string;
  entityId: string;
  before: unknown;
  after: unknown;
}

export function auditHash(prevHash: string, fields: HashedFields): string {
  return createHash('sha256').update(prevHash).update(canonicalJson(fields)).digest('hex');
}

/** The chain an entry is appended to. */
export function chainOf(actor: Actor, entry: Pick<AuditEntry, 'businessId'>): string {
  if (entry.businessId) return `biz:${entry.businessId}`;
  return actor.accountId ? `acct:${actor.accountId}` : 'operator';
}

/** A JSON round trip, so what is hashed equals what jsonb gives back (no undefined, no Dates). */
export function plain(v: unknown): unknown {
  return v === undefined ? null : JSON.parse(JSON.stringify(v));
}

/**
 * Where a value only the database knows (a document's number) goes in a text built here: the text is
 * sent split at each occurrence and the database joins the parts with the value (migration 0026
 * join_parts). Random per process, so no caller's data can contain it.
 */
export const NUMBER_HOLE = `\u27e6number:${randomBytes(6).toString('hex')}\u27e7`;
const HOLE_JSON = JSON.stringify(NUMBER_HOLE);

/** A text split where NUMBER_HOLE stands (a JSON text: where the string NUMBER_HOLE stands, quotes included). */
export const holeParts = (text: string, json = false): string[] => text.split(json ? HOLE_JSON : NUMBER_HOLE);

/** The row audit_append writes (migration 0026): the hashed fields' canonical JSON (before and after with them), split at the number's hole. */
export type AuditRowCall = Omit<HashedFields, 'before' | 'after'> & { hashParts: string[] };

/**
 * The audit row of an entry, for audit_append: the database locks the chain's head and hashes
 * sha256(prev_hash || canonical JSON) as auditHash does. `after` may hold NUMBER_HOLE where the
 * document's number goes.
 */
export function auditRowCall(at: Date, actor: Actor, entry: AuditEntry): AuditRowCall {
  const chain = chainOf(actor, entry);
  const fields: HashedFields = {
    id: newId('aud', at.getTime()),
    chain,
    at: at.toISOString(),
    accountId: actor.accountId,
    keyId: actor.keyId,
    businessId: entry.businessId ?? null,
    action: entry.action,
    entityType: entry.entityType,
    entityId: entry.entityId,
    // canonicalJson reads them as JSON does (toJSON, no undefined): no JSON round trip is needed.
    before: entry.before ?? null,
    after: entry.after ?? null,
  };
  // audit_append stores `before` and `after` from the hashed text itself: they are sent once.
  const { before: _before, after: _after, ...row } = fields;
  return { ...row, hashParts: holeParts(canonicalJson(fields), true) };
}

/**
 * Appends one audit row in the caller's transaction, linked to the previous row of its chain, in one
 * round trip (audit_append locks the head; the trigger audit_log_move_head moves it). `alongside`:
 * other writes of the same transaction, sent in the same statement; none may append to the chain.
 */
export async function appendAudit(tx: Executor, { at, actor }: { at: Date; actor: Actor }, entry: AuditEntry, alongside: SQL[] = []): Promise<void> {
  await tx.execute(withWrites(alongside, sql`SELECT audit_append(${JSON.stringify(auditRowCall(at, actor, entry))}::jsonb, NULL)`));
}

export interface AuditProblem {
  /** The audit chain, or 'triggers' / 'documents' for the checks of the books themselves. */
  chain: string;
  seq: number | null;
  problem: string;
  /** Set on a problem with one issued document. */
  documentId?: string;
  /** Set on a problem with one protecting trigger. */
  trigger?: string;
}

export interface ChainCheck {
  ok: boolean;
  chains: number;
  rows: number;
  /** Protecting triggers checked (all of PROTECTING_TRIGGERS). */
  triggers: number;
  /** Issued documents compared with their issue audit row. */
  documents: number;
  problems: AuditProblem[];
}

/**
 * The triggers that protect the books (migrations 0001–0016, 0028, 0052), by table. PostgreSQL lets the
 * table owner or a superuser switch them off (ALTER TABLE … DISABLE TRIGGER, DROP TRIGGER); the
 * walk reports any that is not firing now. (session_replication_role = replica is per session and
 * leaves no trace here: the document check below catches what such a session changed.)
 */
export const PROTECTING_TRIGGERS: Record<string, string[]> = {
  audit_log: ['audit_log_no_update', 'audit_log_no_truncate', 'audit_log_move_head'],
  audit_chain_heads: ['audit_chain_heads_forward', 'audit_chain_heads_no_delete', 'audit_chain_heads_no_truncate'],
  documents: ['documents_frozen_after_issue', 'documents_never_delete_issued', 'documents_no_truncate'],
  document_counters: ['document_counters_forward', 'document_counters_no_delete', 'document_counters_no_truncate'],
  expenses: ['expenses_immutable', 'expenses_no_truncate'],
  files: ['files_immutable', 'files_keep_issued', 'files_no_truncate'],
  file_chunks: ['file_chunks_complete', 'file_chunks_immutable', 'file_chunks_no_truncate'],
  document_prints: ['document_prints_no_update', 'document_prints_no_truncate'],
  pdf_links: ['pdf_links_no_update', 'pdf_links_no_truncate'],
  export_runs: ['export_runs_frozen', 'export_runs_no_truncate'],
  backups: ['backups_immutable', 'backups_no_truncate'],
  ledger_accounts: ['ledger_accounts_guard', 'ledger_accounts_no_truncate'],
  ledger_counters: ['ledger_counters_guard', 'ledger_counters_no_delete', 'ledger_counters_no_truncate'],
  journal_entries: ['journal_entries_immutable', 'journal_entries_no_truncate', 'journal_entries_stamp', 'journal_entries_balanced'],
  ledger_periods: ['ledger_periods_immutable', 'ledger_periods_no_truncate', 'ledger_periods_in_order'],
  journal_lines: ['journal_lines_immutable', 'journal_lines_no_truncate', 'journal_lines_guard'],
  supplier_payments: ['supplier_payments_immutable', 'supplier_payments_no_truncate', 'supplier_payments_guard'],
  document_sources: ['document_sources_immutable', 'document_sources_no_truncate'],
  donation_reports: ['donation_reports_guard', 'donation_reports_no_truncate'],
};

/**
 * A check of the books run in the walk's snapshot (a domain's: platform knows none). `businessId`
 * is the business of the one chain walked, undefined when every chain is, null when the chain
 * walked is no business's.
 */
export type BooksCheck = (ex: Executor, result: ChainCheck, businessId: string | null | undefined) => Promise<void>;

/**
 * Walks every chain (or one): each row must link to the previous hash and re-hash to its own, and
 * the last row must be the chain's head; every protecting trigger must fire; then the domains'
 * checks run. One read-only snapshot, so that rows appended while the walk runs (a live server)
 * are neither mistaken for tampering nor half seen.
 */
export async function verifyAuditChains(ex: Executor, onlyChain?: string, checks: BooksCheck[] = []): Promise<ChainCheck> {
  // Inside a caller's transaction this is a savepoint of it (and its snapshot).
  return (ex as Db).transaction(
    async (tx) => {
      const result = await walkChains(tx, onlyChain);
      await checkTriggers(tx, result);
      const businessId = onlyChain === undefined ? undefined : onlyChain.startsWith('biz:') ? onlyChain.slice(4) : null;
      for (const check of checks) await check(tx, result, businessId);
      result.ok = result.problems.length === 0;
      return result;
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/** Every protecting trigger must exist and fire in ordinary sessions (tgenabled 'O' or 'A'). */
async function checkTriggers(ex: Executor, result: ChainCheck): Promise<void> {
  const rows = await query<{ table_name: string; tgname: string; tgenabled: string }>(
    ex,
    sql`SELECT c.relname AS table_name, t.tgname, t.tgenabled::text AS tgenabled
          FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         WHERE NOT t.tgisinternal AND c.relnamespace = to_regnamespace(current_schema())`,
  );
  const found = new Map(rows.map((r) => [`${r.table_name}.${r.tgname}`, r.tgenabled]));
  for (const [table, names] of Object.entries(PROTECTING_TRIGGERS)) {
    for (const name of names) {
      result.triggers++;
      const state = found.get(`${table}.${name}`);
      if (state === undefined) {
        result.problems.push({ chain: 'triggers', seq: null, trigger: name, problem: `trigger ${name} on ${table} is missing (dropped?)` });
      } else if (state !== 'O' && state !== 'A') {
        const how = state === 'D' ? 'disabled' : 'enabled for replica sessions only';
        result.problems.push({ chain: 'triggers', seq: null, trigger: name, problem: `trigger ${name} on ${table} is ${how}: the rule it enforces is off` });
      }
    }
  }
}

async function walkChains(ex: Executor, onlyChain?: string): Promise<ChainCheck> {
  const heads = await query<{ chain: string; last_seq: number; last_hash: string }>(
    ex,
    onlyChain
      ? sql`SELECT chain, last_seq, last_hash FROM audit_chain_heads WHERE chain = ${onlyChain}`
      : sql`SELECT chain, last_seq, last_hash FROM audit_chain_heads ORDER BY chain`,
  );
  const result: ChainCheck = { ok: true, chains: heads.length, rows: 0, triggers: 0, documents: 0, problems: [] };
  for (const head of heads) {
    let prev = GENESIS;
    let lastSeq = 0;
    let afterSeq = 0;
    for (;;) {
      const rows = await query<Record<string, unknown>>(
        ex,
        sql`SELECT * FROM audit_log WHERE chain = ${head.chain} AND seq > ${afterSeq} ORDER BY seq LIMIT 1000`,
      );
      if (rows.length === 0) break;
      for (const r of rows) {
        result.rows++;
        const seq = Number(r.seq);
        const fields: HashedFields = {
          id: String(r.id),
          chain: String(r.chain),
          at: iso(r.at),
          accountId: (r.account_id as string | null) ?? null,
          keyId: (r.key_id as string | null) ?? null,
          businessId: (r.business_id as string | null) ?? null,
          action: String(r.action),
          entityType: String(r.entity_type),
          entityId: String(r.entity_id),
          before: r.before ?? null,
          after: r.after ?? null,
        };
        if (r.prev_hash !== prev) result.problems.push({ chain: head.chain, seq, problem: 'prev_hash does not match the previous row' });
        if (auditHash(String(r.prev_hash), fields) !== r.hash) result.problems.push({ chain: head.chain, seq, problem: 'hash does not match the row' });
        prev = String(r.hash);
        lastSeq = seq;
      }
      afterSeq = lastSeq;
    }
    if (prev !== head.last_hash || lastSeq !== Number(head.last_seq)) {
      result.problems.push({ chain: head.chain, seq: null, problem: 'chain head does not match the last row (rows missing?)' });
    }
  }
  if (!onlyChain) {
    // A chain whose head was removed would otherwise be skipped.
    const orphans = await query<{ chain: string }>(
      ex,
      sql`SELECT DISTINCT l.chain FROM audit_log l WHERE NOT EXISTS (SELECT 1 FROM audit_chain_heads h WHERE h.chain = l.chain) ORDER BY 1`,
    );
    for (const o of orphans) result.problems.push({ chain: o.chain, seq: null, problem: 'audit rows without a chain head (head deleted?)' });
  }
  result.ok = result.problems.length === 0;
  return result;
}
