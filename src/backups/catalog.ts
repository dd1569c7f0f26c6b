/**
 * Which tables hold a business's records, found in the database catalog (so a table another area
 * adds later with a `business_id` column is backed up without touching this code), and the order
 * to load them so every foreign key points at rows already loaded.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';

/**
 * Delivery machinery and counters that are not records of the business (queued jobs, the event
 * outbox, webhook deliveries and attempts, usage and rate windows), and earlier backups (a backup
 * never contains backups: they would nest and grow without end). The webhook endpoints narrowed to
 * the business (business_id set) are backed up, secret included; account-wide ones are not the business's.
 */
export const NOT_BACKED_UP = new Set([
  'jobs',
  'outbox_events',
  'webhook_deliveries',
  'webhook_attempts',
  'usage_daily',
  'rate_limit_windows',
  'rate_limit_seconds',
  'backups',
  'schema_migrations',
]);

export interface ForeignKey {
  table: string;
  references: string;
}

/**
 * Load order: a table comes after every table it references (self-references ignored — rows of one
 * table load together with FK checks off). Tables referencing something outside the set are dropped
 * (with their dependants), since their rows could not be restored whole. Ties sort by name. Pure.
 */
export function loadOrder(tables: string[], fks: ForeignKey[]): { order: string[]; dropped: string[] } {
  const set = new Set(tables);
  const dropped: string[] = [];
  for (let changed = true; changed;) {
    changed = false;
    for (const t of [...set]) {
      if (fks.some((f) => f.table === t && f.references !== t && !set.has(f.references))) {
        set.delete(t);
        dropped.push(t);
        changed = true;
      }
    }
  }
  const order: string[] = [];
  const placed = new Set<string>();
  while (placed.size < set.size) {
    const ready = [...set].filter((t) => !placed.has(t) && fks.every((f) => f.table !== t || f.references === t || placed.has(f.references))).sort();
    if (ready.length === 0) throw new Error(`foreign keys form a cycle among: ${[...set].filter((t) => !placed.has(t)).join(', ')}`);
    for (const t of ready) {
      order.push(t);
      placed.add(t);
    }
  }
  return { order, dropped: dropped.sort() };
}

export async function foreignKeys(ex: Executor): Promise<ForeignKey[]> {
  return query<ForeignKey>(
    ex,
    sql`SELECT c.conrelid::regclass::text AS "table", c.confrelid::regclass::text AS "references"
        FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace`,
  );
}

/** `businesses`, `audit_chain_heads` and every public table with a business_id column, minus NOT_BACKED_UP. */
export async function businessTables(ex: Executor): Promise<string[]> {
  const rows = await query<{ table_name: string }>(
    ex,
    sql`SELECT DISTINCT table_name FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name = 'business_id' ORDER BY table_name`,
  );
  return ['businesses', 'audit_chain_heads', ...rows.map((r) => r.table_name)].filter((t) => !NOT_BACKED_UP.has(t));
}

export async function primaryKeyColumns(ex: Executor, table: string): Promise<string[]> {
  const rows = await query<{ attname: string }>(
    ex,
    sql`SELECT a.attname FROM pg_index i
        JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
        WHERE i.indrelid = ${table}::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
  );
  return rows.map((r) => r.attname);
}

/** The rows of `table` that belong to the business. */
export function ownership(table: string, businessId: string) {
  if (table === 'businesses') return sql`t.id = ${businessId}`;
  if (table === 'audit_chain_heads') return sql`t.chain = ${'biz:' + businessId}`;
  return sql`t.business_id = ${businessId}`;
}
