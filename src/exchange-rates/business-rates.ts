/**
 * Rates a business agreed with its customers (table business_exchange_rates): the row with the
 * latest `effective_from` on or before a day applies to it. Every change is audited in the
 * business's chain, in the transaction that makes it.
 */
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/engine.ts';
import { iso, query, queryOne } from '../platform/db/sql.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { businessExchangeRates } from './tables.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { notFound } from '../platform/errors.ts';

export interface BusinessRateView {
  currency: string;
  effectiveFrom: string;
  rate: string;
  createdAt: string;
}

const COLUMNS = sql`currency, effective_from::text AS effective_from, rate, created_at`;

function toView(r: Record<string, unknown>): BusinessRateView {
  return { currency: String(r.currency), effectiveFrom: String(r.effective_from), rate: String(r.rate), createdAt: iso(r.created_at) };
}

/** The agreed rate that applies to `date`, or null. */
export async function businessRateOn(ex: Executor, businessId: string, currency: string, date: string): Promise<BusinessRateView | null> {
  const r = await queryOne(
    ex,
    sql`SELECT ${COLUMNS} FROM business_exchange_rates
        WHERE business_id = ${businessId} AND currency = ${currency} AND effective_from <= ${date}
        ORDER BY effective_from DESC LIMIT 1`,
  );
  return r ? toView(r) : null;
}

export async function listBusinessRates(ex: Executor, businessId: string, currency?: string): Promise<BusinessRateView[]> {
  const only = currency ? sql`AND currency = ${currency}` : sql``;
  const rows = await query(ex, sql`SELECT ${COLUMNS} FROM business_exchange_rates WHERE business_id = ${businessId} ${only} ORDER BY currency, effective_from`);
  return rows.map(toView);
}

const entityId = (currency: string, effectiveFrom: string) => `${currency}:${effectiveFrom}`;

/** Sets (or replaces) the rate of a currency from a day on. Unchanged: nothing written, nothing audited. */
export async function setBusinessRate(
  database: Database,
  { at, actor, businessId, input }: { at: Date; actor: Actor; businessId: string; input: { currency: string; effectiveFrom: string; rate: string } },
): Promise<{ rate: BusinessRateView; created: boolean }> {
  return database.db.transaction(async (tx) => {
    const beforeRow = await queryOne(
      tx,
      sql`SELECT ${COLUMNS} FROM business_exchange_rates
        WHERE business_id = ${businessId} AND currency = ${input.currency} AND effective_from = ${input.effectiveFrom} FOR UPDATE`,
    );
    const before = beforeRow ? toView(beforeRow) : null;
    if (before && before.rate === input.rate) return { rate: before, created: false };
    const row = await queryOne(
      tx,
      sql`${insertInto(businessExchangeRates, {
        businessId,
        currency: input.currency,
        effectiveFrom: input.effectiveFrom,
        rate: input.rate,
        createdAt: at,
        createdByKeyId: actor.keyId,
      })}
        ON CONFLICT (business_id, currency, effective_from)
        DO UPDATE SET rate = EXCLUDED.rate, created_at = EXCLUDED.created_at, created_by_key_id = EXCLUDED.created_by_key_id
        RETURNING ${COLUMNS}`,
    );
    const after = toView(row!);
    await appendAudit(
      tx,
      { at, actor },
      {
        businessId,
        action: before ? 'exchange_rate.replace' : 'exchange_rate.set',
        entityType: 'exchange_rate',
        entityId: entityId(input.currency, input.effectiveFrom),
        before,
        after,
      },
    );
    return { rate: after, created: !before };
  });
}

export async function deleteBusinessRate(
  database: Database,
  { at, actor, businessId, currency, effectiveFrom }: { at: Date; actor: Actor; businessId: string; currency: string; effectiveFrom: string },
): Promise<BusinessRateView> {
  return database.db.transaction(async (tx) => {
    const row = await queryOne(
      tx,
      sql`DELETE FROM business_exchange_rates
        WHERE business_id = ${businessId} AND currency = ${currency} AND effective_from = ${effectiveFrom}
        RETURNING ${COLUMNS}`,
    );
    if (!row) throw notFound(`exchange rate of ${currency} effective from ${effectiveFrom}`);
    const before = toView(row);
    await appendAudit(
      tx,
      { at, actor },
      {
        businessId,
        action: 'exchange_rate.delete',
        entityType: 'exchange_rate',
        entityId: entityId(currency, effectiveFrom),
        before,
      },
    );
    return before;
  });
}
