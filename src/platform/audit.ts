import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db, Executor } from './db/engine.ts';
import { iso, query, queryOne } from './db/sql.ts';
import { canonicalJson } from './canonical-json.ts';
import { newId } from './ids.ts';

/** Who made a write: an API key, the console (account only) or the operator CLI (neither). */
export interface Actor {
  accountId: string | null;
  keyId: string | null;
}

export interface AuditEntry {
  businessId?: string | null;
  action: string;
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

function chainOf(actor: Actor, entry: AuditEntry): string {
  if (entry.businessId) return `biz:${entry.businessId}`;
  return actor.accountId ? `acct:${actor.accountId}` : 'operator';
}

/** A JSON round trip, so what is hashed equals what jsonb gives back (no undefined, no Dates). */
function plain(v: unknown): unknown {
  return v === undefined ? null : JSON.parse(JSON.stringify(v));
}

/** Appends one audit row in the caller's transaction, linked to the previous row of its chain. */
export async function appendAudit(tx: Executor, at: Date, actor: Actor, entry: AuditEntry): Promise<void> {
  const chain = chainOf(actor, entry);
  await tx.execute(
    sql`INSERT INTO audit_chain_heads(chain, last_seq, last_hash) VALUES (${chain}, 0, ${GENESIS}) ON CONFLICT (chain) DO NOTHING`,
  );
  const head = await queryOne<{ last_hash: string }>(
    tx,
    sql`SELECT last_hash FROM audit_chain_heads WHERE chain = ${chain} FOR UPDATE`,
  );
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
    before: plain(entry.before),
    after: plain(entry.after),
  };
  const prevHash = head!.last_hash;
  const hash = auditHash(prevHash, fields);
  const inserted = await queryOne<{ seq: number }>(
    tx,
    sql`INSERT INTO audit_log(id, chain, at, account_id, key_id, business_id, action, entity_type, entity_id, before, after, prev_hash, hash)
        VALUES (${fields.id}, ${chain}, ${fields.at}, ${fields.accountId}, ${fields.keyId}, ${fields.businessId}, ${fields.action},
                ${fields.entityType}, ${fields.entityId}, ${JSON.stringify(fields.before)}::jsonb, ${JSON.stringify(fields.after)}::jsonb,
                ${prevHash}, ${hash})
        RETURNING seq`,
  );
  await tx.execute(sql`UPDATE audit_chain_heads SET last_seq = ${inserted!.seq}, last_hash = ${hash} WHERE chain = ${chain}`);
}

export interface ChainCheck {
  ok: boolean;
  chains: number;
  rows: number;
  problems: { chain: string; seq: number | null; problem: string }[];
}

/**
 * Walks every chain (or one): each row must link to the previous hash and re-hash to its own, and
 * the last row must be the chain's head. One read-only snapshot, so that rows appended while the
 * walk runs (a live server) are neither mistaken for tampering nor half seen.
 */
export async function verifyAuditChains(ex: Executor, onlyChain?: string): Promise<ChainCheck> {
  // Inside a caller's transaction this is a savepoint of it (and its snapshot).
  return (ex as Db).transaction((tx) => walkChains(tx, onlyChain), { isolationLevel: 'repeatable read', accessMode: 'read only' });
}

async function walkChains(ex: Executor, onlyChain?: string): Promise<ChainCheck> {
  const heads = await query<{ chain: string; last_seq: number; last_hash: string }>(
    ex,
    onlyChain
      ? sql`SELECT chain, last_seq, last_hash FROM audit_chain_heads WHERE chain = ${onlyChain}`
      : sql`SELECT chain, last_seq, last_hash FROM audit_chain_heads ORDER BY chain`,
  );
  const result: ChainCheck = { ok: true, chains: heads.length, rows: 0, problems: [] };
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
  result.ok = result.problems.length === 0;
  return result;
}
