import { Type, type TSchema, type TProperties } from 'typebox';
import { DATE_MAX, DATE_MIN } from './formats.ts';
import { reasonsByStatus } from './openapi-reasons.ts';

/** A success body: `ok: true` next to the payload fields. */
/** A success answer: `{ok: true, ...props}`; `title` names it in the OpenAPI document (named-schemas.ts). */
export function Ok<P extends TProperties>(props: P, title?: string) {
  return Type.Object({ ok: Type.Literal(true), ...props }, title ? { title } : {});
}

/** What each error status means across the API; its reasons come from ERROR_STATUSES. */
const ERROR_MEANINGS: Record<number, string> = {
  400: 'The input was refused (a validation error names the field), or a rule of the request refused it.',
  401: 'Missing, unknown, revoked or expired API key.',
  403: 'The key lacks the scope, the account or business awaits approval, or the business is deactivated.',
  404: "No such resource for this key; another account's resource is not found either.",
  409: 'Conflicts with the current state; `pdf_pending` while the signed PDF is rendered (retry after `Retry-After`).',
  413: 'The body is larger than this endpoint accepts.',
  415: 'The body is of a type this endpoint does not take.',
  422: 'A business rule refused the request.',
  429: 'Rate limit (with `Retry-After`), monthly plan limit or daily quota.',
  500: 'Unexpected failure; it was logged with the request id.',
  502: 'A provider (tax authority, OCR, email) failed or could not be reached.',
  503: 'The feature is not configured on this server or the business has not connected it, or the server cannot answer it now.',
};

const REASONS_BY_STATUS = reasonsByStatus();

/** `Reasons: `validation`, `doc_type_not_allowed` (draft writes).`, from the reason→status table. */
function reasonsOf(status: number): string {
  const reasons = (REASONS_BY_STATUS.get(status) ?? []).map(({ reason, when }) => `\`${reason}\`${when ? ` (${when})` : ''}`);
  return reasons.length ? ` Reasons: ${reasons.join(', ')}.` : '';
}

/** Response schemas for the given error statuses, for the OpenAPI document (`Error`: ErrorSchema in error-handler.ts). */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) out[s] = Type.Ref('Error', { description: `${ERROR_MEANINGS[s] ?? 'Error.'}${reasonsOf(s)}` });
  return out;
}

/** The statuses any authenticated route may answer. */
export const AUTH_ERRORS = [400, 401, 403, 404, 429] as const;

/**
 * Every date the API accepts (see formats.ts): `format: 'date'` is ajv-formats' full-mode check of
 * the calendar (days in month, leap years) and the min/max keywords the range, so a 2025-02-30 or a
 * 1999-12-31 is a 400 `validation` naming the field, like every other schema failure.
 */
export const IsoDate = Type.String({
  format: 'date',
  formatMinimum: DATE_MIN,
  formatMaximum: DATE_MAX,
  description: `YYYY-MM-DD, a real calendar date from ${DATE_MIN} through ${DATE_MAX}`,
});
/**
 * An instant, RFC 3339, from 1900 through 9999: PostgreSQL refuses year 0 (it reached the database
 * and failed there as a 500). Not 1970 as the minimum: ajv-formats skips a bound whose epoch value is 0.
 */
export const IsoDateTime = Type.String({ format: 'date-time', formatMinimum: '1900-01-01T00:00:00Z', formatMaximum: '9999-12-31T23:59:59Z' });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

const Bid = Type.String({ minLength: 1, maxLength: 64, description: "The business's id (`biz_…`), as createBusiness or listBusinesses answers it." });
const Id = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'The id of the object the path names (a document `doc_…`, a party `pty_…`, an expense `exp_…`…).',
});
export const BidParams = Type.Object({ bid: Bid }, { additionalProperties: false });
export const BidIdParams = Type.Object({ bid: Bid, id: Id }, { additionalProperties: false });
export const IdParams = Type.Object({ id: Id }, { additionalProperties: false });
