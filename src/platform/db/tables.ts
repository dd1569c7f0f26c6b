/**
 * Typed definitions of the plumbing tables (audit trail, outbox, jobs, usage, idempotency, files,
 * rate limits) and the column builders every domain's `tables.ts` shares. Each table of the
 * migrations has exactly one definition, in the module that writes it; test/foundation/tables.test.ts
 * checks them all against a migrated database. `schema_migrations` is the migrator's own (migrate.ts).
 */
import { bigint, bigserial, customType, date, integer, jsonb, pgTable, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';
import type { Metadata } from '../metadata.ts';
import { BACKENDS } from '../file-store/store.ts';

/** `timestamptz(3)`: the instants of the books, to the millisecond; read and written as Date. */
export const timestamptz3 = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
/** `timestamptz` at PostgreSQL's default precision (microseconds). */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
/** `date`, as PostgreSQL writes it (YYYY-MM-DD): a calendar day, never an instant. */
export const day = (name: string) => date(name, { mode: 'string' });
/** `bigint` as a JS number: agorot and counters stay far below 2^53 (engine.ts parses int8 the same way). */
export const int8 = (name: string) => bigint(name, { mode: 'number' });
/** A `metadata jsonb NOT NULL DEFAULT '{}'` column (migration 0019). */
export const metadataColumn = () => jsonb('metadata').$type<Metadata>().notNull().default({});

/** Raw bytes; drizzle's pg-core has no bytea builder of its own. */
export const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });
/** A 64-bit transaction id, read as its decimal text (pg has no parser for it). */
export const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' });

export const auditLog = pgTable('audit_log', {
  seq: bigserial('seq', { mode: 'number' }).primaryKey(),
  id: text('id').notNull(),
  chain: text('chain').notNull(),
  at: timestamptz3('at').notNull(),
  accountId: text('account_id'),
  keyId: text('key_id'),
  businessId: text('business_id'),
  action: text('action').notNull(),
  entityType: text('entity_type').notNull(),
  entityId: text('entity_id').notNull(),
  before: jsonb('before'),
  after: jsonb('after'),
  prevHash: text('prev_hash').notNull(),
  hash: text('hash').notNull(),
});

export const auditChainHeads = pgTable('audit_chain_heads', {
  chain: text('chain').primaryKey(),
  lastSeq: int8('last_seq').notNull(),
  lastHash: text('last_hash').notNull(),
});

export const outboxEvents = pgTable('outbox_events', {
  id: text('id').primaryKey(),
  event: text('event').notNull(),
  accountId: text('account_id').notNull(),
  businessId: text('business_id'),
  data: jsonb('data').notNull(),
  createdAt: timestamptz3('created_at').notNull(),
  dispatchedAt: timestamptz3('dispatched_at'),
});

export const usageDaily = pgTable(
  'usage_daily',
  {
    day: day('day').notNull(),
    subject: text('subject').notNull(),
    metric: text('metric').notNull(),
    count: int8('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.subject, t.metric, t.day] })],
);

export const jobs = pgTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    businessId: text('business_id'),
    refId: text('ref_id').notNull(),
    payload: jsonb('payload').notNull().default({}),
    runAt: timestamptz3('run_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    lockedUntil: timestamptz3('locked_until'),
    lastError: text('last_error'),
    doneAt: timestamptz3('done_at'),
    failedAt: timestamptz3('failed_at'),
    createdAt: timestamptz3('created_at').notNull(),
  },
  (t) => [unique('jobs_kind_ref_id_key').on(t.kind, t.refId)],
);

/** An idempotency key is claimed (`pending`) until its answer is stored (`done`). */
export const IDEMPOTENCY_STATES = ['pending', 'done'] as const;
export type IdempotencyState = (typeof IDEMPOTENCY_STATES)[number];

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    accountId: text('account_id').notNull(),
    idemKey: text('idem_key').notNull(),
    requestHash: text('request_hash').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    state: text('state', { enum: IDEMPOTENCY_STATES }).notNull(),
    claimId: text('claim_id').notNull(),
    leaseUntil: timestamptz('lease_until').notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    createdAt: timestamptz('created_at').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.idemKey] })],
);

/**
 * Content-addressed per business. `store` names where the bytes are (0030): 'fs' or 's3' (platform/file-store),
 * or NULL for a row written before: content inline, or in file_chunks when chunk_size is set (0012).
 */
export const files = pgTable(
  'files',
  {
    id: text('id').primaryKey(),
    businessId: text('business_id').notNull(),
    sha256: text('sha256').notNull(),
    mime: text('mime').notNull(),
    size: integer('size').notNull(),
    name: text('name').notNull(),
    content: bytea('content'),
    createdAt: timestamptz3('created_at').notNull(),
    chunkSize: integer('chunk_size'),
    store: text('store', { enum: BACKENDS }),
  },
  (t) => [unique('files_business_id_sha256_key').on(t.businessId, t.sha256)],
);

export const fileChunks = pgTable(
  'file_chunks',
  {
    fileId: text('file_id').notNull(),
    businessId: text('business_id').notNull(),
    n: integer('n').notNull(),
    bytes: bytea('bytes').notNull(),
  },
  (t) => [primaryKey({ columns: [t.fileId, t.n] })],
);

/** Written only by the SQL function rate_limit_hit (0001). */
export const rateLimitWindows = pgTable('rate_limit_windows', {
  keyId: text('key_id').primaryKey(),
  hits: int8('hits').array().notNull(),
});

/** Written only by the SQL function rate_limit_hit_seconds (0013). */
export const rateLimitSeconds = pgTable(
  'rate_limit_seconds',
  {
    keyId: text('key_id').notNull(),
    second: int8('second').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.second] })],
);
