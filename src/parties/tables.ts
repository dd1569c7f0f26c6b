/** Typed definitions of the tables the parties domain writes (migrations 0001, 0019). */
import { integer, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { metadataColumn, timestamptz3 } from '../platform/db/tables.ts';
import { PARTY_KEY_SERIES, PARTY_KINDS } from './lists.ts';

export const parties = pgTable(
  'parties',
  {
    id: text('id').primaryKey(),
    businessId: text('business_id').notNull(),
    key: text('key').notNull(),
    kind: text('kind', { enum: PARTY_KINDS }).notNull(),
    name: text('name').notNull(),
    taxId: text('tax_id'),
    phone: text('phone'),
    /** The phone's last nine digits, for find-or-create by phone. */
    phoneLast9: text('phone_last9'),
    email: text('email'),
    address: text('address'),
    digitalDocConsentAt: timestamptz3('digital_doc_consent_at'),
    createdAt: timestamptz3('created_at').notNull(),
    updatedAt: timestamptz3('updated_at').notNull(),
    metadata: metadataColumn(),
  },
  (t) => [unique('parties_business_id_key_key').on(t.businessId, t.key)],
);
export type PartyRow = typeof parties.$inferSelect;

/** The running number of each key series (C customers, S suppliers) per business. */
export const partyKeyCounters = pgTable(
  'party_key_counters',
  {
    businessId: text('business_id').notNull(),
    series: text('series', { enum: PARTY_KEY_SERIES }).notNull(),
    lastNumber: integer('last_number').notNull(),
  },
  (t) => [primaryKey({ columns: [t.businessId, t.series] })],
);
