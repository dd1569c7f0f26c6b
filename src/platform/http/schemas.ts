import { Type, type TSchema, type TProperties } from 'typebox';

/** Every failure body. */
export const ErrorBody = Type.Object(
  { error: Type.String({ description: 'Human-readable, safe to log.' }), reason: Type.String({ description: 'Stable machine code.' }) },
  { $id: 'Error', description: 'Every failure: `{error, reason}`.' },
);

/** A success body: `ok: true` next to the payload fields. */
export function Ok<P extends TProperties>(props: P) {
  return Type.Object({ ok: Type.Literal(true), ...props });
}

/** Response schemas for the given error statuses, for the OpenAPI document. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) out[s] = Type.Ref('Error');
  return out;
}

/** The statuses any authenticated route may answer. */
export const AUTH_ERRORS = [400, 401, 403, 404, 429] as const;

export const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' });
export const IsoDateTime = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const BidParams = Type.Object({ bid: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
export const BidIdParams = Type.Object(
  { bid: Type.String({ minLength: 1, maxLength: 64 }), id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
