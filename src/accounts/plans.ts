import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, query, queryOne } from '../platform/db/sql.ts';
import { validation } from '../platform/errors.ts';

/** A named tier supplying monthly ceilings. Plans live in the live (control) database. */
export interface Plan {
  key: string;
  name: string;
  maxDocsPerMonth: number | null;
  maxExpensesPerMonth: number | null;
  createdAt: string;
}

const toPlan = (r: Record<string, unknown>): Plan => ({
  key: String(r.key),
  name: String(r.name),
  maxDocsPerMonth: r.max_docs_per_month === null ? null : Number(r.max_docs_per_month),
  maxExpensesPerMonth: r.max_expenses_per_month === null ? null : Number(r.max_expenses_per_month),
  createdAt: iso(r.created_at),
});

export async function upsertPlan(
  ex: Executor,
  now: Date,
  p: { key: string; name: string; maxDocsPerMonth: number | null; maxExpensesPerMonth: number | null },
): Promise<Plan> {
  if (!/^[a-z0-9][a-z0-9_-]{0,39}$/.test(p.key)) throw validation('key', 'lowercase letters, digits, - and _, at most 40');
  const row = await queryOne<Record<string, unknown>>(
    ex,
    sql`INSERT INTO plans(key, name, max_docs_per_month, max_expenses_per_month, created_at)
        VALUES (${p.key}, ${p.name}, ${p.maxDocsPerMonth}, ${p.maxExpensesPerMonth}, ${now.toISOString()})
        ON CONFLICT (key) DO UPDATE SET name = EXCLUDED.name, max_docs_per_month = EXCLUDED.max_docs_per_month,
          max_expenses_per_month = EXCLUDED.max_expenses_per_month
        RETURNING *`,
  );
  return toPlan(row!);
}

export async function listPlans(ex: Executor): Promise<Plan[]> {
  return (await query<Record<string, unknown>>(ex, sql`SELECT * FROM plans ORDER BY key`)).map(toPlan);
}

export async function getPlan(ex: Executor, key: string): Promise<Plan | undefined> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT * FROM plans WHERE key = ${key}`);
  return r ? toPlan(r) : undefined;
}
