/**
 * `metadata`: the caller's own string labels on a business, party, document or expense (an order
 * number, a CRM id). Bounded so that a row stays small and the GIN index stays cheap; never
 * printed or exported. Lists filter by exact key/value with `metadata=key:value` (repeatable, all
 * must match), served by `metadata @> …` on a `jsonb_path_ops` GIN index (migration 0019).
 */
import { sql, type SQL } from 'drizzle-orm';
import { Type } from 'typebox';

export const METADATA_MAX_KEYS = 20;
export const METADATA_KEY_PATTERN = '^[A-Za-z0-9_.-]{1,40}$';
export const METADATA_VALUE_MAX = 500;

export type Metadata = Record<string, string>;

export const METADATA_DESCRIPTION = `At most ${METADATA_MAX_KEYS} keys of 1–40 characters from [A-Za-z0-9_.-], each with a string value of at most ${METADATA_VALUE_MAX} characters. Yours to use (an order number, a CRM id); never printed or exported.`;

/** The schema of a stored metadata object (ajv checks the bounds; the Static type is a plain record). */
export const MetadataSchema = Type.Unsafe<Metadata>({
  type: 'object',
  description: METADATA_DESCRIPTION,
  maxProperties: METADATA_MAX_KEYS,
  propertyNames: { pattern: METADATA_KEY_PATTERN },
  additionalProperties: { type: 'string', maxLength: METADATA_VALUE_MAX },
  examples: [{ orderId: '1001', crm: 'acct-17' }],
});

/** Create bodies: optional; an absent object stores `{}`. */
export const MetadataCreate = Type.Optional(MetadataSchema);

/** Patch bodies: the object given replaces the stored one whole; `null` clears it. */
export const MetadataPatch = Type.Optional(
  Type.Union([MetadataSchema, Type.Null()], { description: `Replaces the stored metadata whole; null clears it. ${METADATA_DESCRIPTION}` }),
);

/** The list filter: `metadata=key:value`, repeatable; every pair must match exactly. */
export const MetadataQuery = Type.Optional(
  Type.Array(Type.String({ pattern: `^[A-Za-z0-9_.-]{1,40}:`, maxLength: 41 + METADATA_VALUE_MAX }), {
    maxItems: METADATA_MAX_KEYS,
    description: 'Exact match on metadata: `key:value` (split at the first colon), repeatable; all pairs must match.',
  }),
);

/** Pairs `key:value` as one object (the last value of a repeated key wins). */
export function metadataFilterOf(pairs: readonly string[] | undefined): Metadata | undefined {
  if (!pairs || pairs.length === 0) return undefined;
  const out: Metadata = {};
  for (const pair of pairs) {
    const at = pair.indexOf(':');
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/**
 * The containment condition for a list's WHERE (none without a filter); `column` defaults to `metadata`.
 * A filter has one pair or more, so only a labelled row matches: `<> '{}'` says so in the words of the
 * partial indexes of documents and expenses (migration 0065), which the planner then takes.
 */
export function metadataCondition(pairs: readonly string[] | undefined, column: SQL = sql`metadata`): SQL | undefined {
  const filter = metadataFilterOf(pairs);
  return filter ? sql`(${column} <> '{}'::jsonb AND ${column} @> ${JSON.stringify(filter)}::jsonb)` : undefined;
}

/** A stored column (jsonb, parsed by pg, or text from a cast) as a plain object. */
export function metadataOf(v: unknown): Metadata {
  if (v === null || v === undefined) return {};
  return (typeof v === 'string' ? JSON.parse(v) : v) as Metadata;
}

/** The JSON to store from a create (`undefined` → `{}`) or patch (`undefined` → the current one, `null` → `{}`). */
export function metadataToStore(given: Metadata | null | undefined, current: Metadata = {}): string {
  return JSON.stringify(given === undefined ? current : (given ?? {}));
}
