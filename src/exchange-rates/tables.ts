/** Typed definitions of the exchange-rate tables (migration 0020). Rates are exact decimal text, never floats. */
import { pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { day, timestamptz3 } from '../platform/db/tables.ts';

/** Bank of Israel representative rates already fetched, shared by every business; never changed. */
export const boiExchangeRates = pgTable(
  'boi_exchange_rates',
  {
    currency: text('currency').notNull(),
    forDate: day('for_date').notNull(),
    /** The publication day whose rate applies to for_date. */
    rateDate: day('rate_date').notNull(),
    rate: text('rate').notNull(),
    fetchedAt: timestamptz3('fetched_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.currency, t.forDate] })],
);
export type BoiExchangeRateRow = typeof boiExchangeRates.$inferSelect;
export type NewBoiExchangeRateRow = typeof boiExchangeRates.$inferInsert;

/** Rates a business agreed with its customers, effective from a date until a later row of the currency. */
export const businessExchangeRates = pgTable(
  'business_exchange_rates',
  {
    businessId: text('business_id').notNull(),
    currency: text('currency').notNull(),
    effectiveFrom: day('effective_from').notNull(),
    rate: text('rate').notNull(),
    createdAt: timestamptz3('created_at').notNull(),
    createdByKeyId: text('created_by_key_id'),
  },
  (t) => [primaryKey({ columns: [t.businessId, t.currency, t.effectiveFrom] })],
);
export type BusinessExchangeRateRow = typeof businessExchangeRates.$inferSelect;
export type NewBusinessExchangeRateRow = typeof businessExchangeRates.$inferInsert;
