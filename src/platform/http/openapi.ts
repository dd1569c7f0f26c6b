import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { hoistNamedSchemas } from './named-schemas.ts';
import { Type, type TSchema } from 'typebox';
import { errors } from './schemas.ts';
import { MODES } from '../db/mode.ts';

/**
 * The parts of the OpenAPI document (`/v1/openapi.json`) that hold for every route alike, so that
 * no route has to repeat them: the errors any route can answer, the response headers every answer
 * carries, and the tags. What a route itself answers stays in its own `schema`.
 */

type Json = Record<string, any>;

/**
 * `Idempotency-Key` on a create (docs/foundation.md "Idempotency"). Fastify checks the length; the shape
 * (printable ASCII, no leading or trailing space) is checked by platform/http/idempotency.ts.
 */
export const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Makes the create safe to retry: 1 to 200 printable ASCII characters, no leading or trailing space. The same key ' +
        'with the same request within 24 hours answers the first answer again (header `Idempotent-Replayed: true`, ' +
        '`deduped: true`); with another request, 409 `conflict`.',
    }),
  ),
});

// Typed as what Fastify sends as it is, so a binary route's `reply.send` takes its bytes or stream.
const BINARY = Type.Unsafe<Buffer | Readable | string>({ type: 'string', format: 'binary' });

/** A 2xx whose body is bytes of the given types (not JSON), with its own response headers. */
export function binaryResponse(description: string, contentTypes: readonly string[], headers: Record<string, TSchema> = {}) {
  return { description, headers, content: Object.fromEntries(contentTypes.map((t) => [t, { schema: BINARY }])) };
}

/** A redirect: no body, a `Location`. */
export function redirectResponse(description: string) {
  return { description, type: 'null', headers: { Location: Type.String({ description: 'Where to go next.' }) } };
}

/**
 * A request body read by the handler itself (multipart), described for the document only: Fastify
 * must not validate it (the key is not one Fastify reads); `openapiTransform` moves it to `body`.
 */
export const DOCUMENTED_BODY = 'x-documented-body';

export const TAGS: { name: string; description: string }[] = [
  { name: 'businesses', description: 'Businesses (Israeli dealers) of the account: identity, numbering, branding, deactivation.' },
  { name: 'parties', description: 'Saved customers and suppliers of a business.' },
  { name: 'documents', description: 'Drafts, issue with gapless numbers, credit notes, prints, shares and emails of tax documents.' },
  {
    name: 'exchange-rates',
    description: "Exchange rates of foreign-currency documents: the Bank of Israel representative rate and the business's agreed rates.",
  },
  { name: 'allocation', description: 'Allocation numbers of the tax authority: consent, connection state, requests.' },
  { name: 'expenses', description: 'Expense drafts, receipt upload and scan, recording and storno.' },
  { name: 'files', description: 'Stored files (PDFs, receipts, logos, export and backup zips) and image previews.' },
  { name: 'exports', description: 'OPENFRMT v1.31 exports, verified by reading them back.' },
  { name: 'reports', description: 'Income, VAT and numbering continuity reports.' },
  { name: 'ledger', description: 'Double-entry books: chart of accounts, journal entries, periods, trial balance.' },
  { name: 'backups', description: 'Zips of every record of a business and its files.' },
  { name: 'webhooks', description: 'Webhook endpoints and their deliveries: resend one, replay many.' },
  { name: 'events', description: 'Every event of the key (its account and mode) for 30 days, whether or not a webhook received it.' },
  { name: 'keys', description: 'The API keys of the account.' },
  { name: 'usage', description: 'Per-day usage counts of the account.' },
  { name: 'public', description: 'Links that need no key (a shared PDF).' },
];

const HEADERS: Json = {
  RequestId: {
    description: 'The id of the request: also `requestId` in an error body and `reqId` in its log lines.',
    schema: { type: 'string' },
  },
  ServiceMode: {
    description: 'The database that answered: `sandbox` for a `bk_test_` key, `live` otherwise.',
    schema: { type: 'string', enum: [...MODES] },
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying; sent with `rate_limited`, `pdf_pending` and a `conflict` that clears by itself.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  IdempotentReplayed: {
    description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
};
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

interface RouteInfo {
  schema?: Json;
  url: string;
  route: { method: string | string[]; preValidation?: unknown };
}

/** Marks an operation whose body may be left out (its route reads an empty body as `{}`). */
const EMPTY_BODY = 'x-empty-body-accepted';

/** A route's preValidation for a body that may be left out (issue, credit note, print, share…): none means `{}`. */
export async function emptyBodyIsEmptyObject(req: FastifyRequest): Promise<void> {
  if (req.body === undefined || req.body === null) req.body = {};
}

/** A route that reads an empty body as `{}` (its preValidation is emptyBodyIsEmptyObject). */
export const acceptsEmptyBody = (route: { preValidation?: unknown }): boolean => [route.preValidation].flat().includes(emptyBodyIsEmptyObject);

const hasIdempotencyKey = (schema: Json) => Boolean(schema.headers?.properties?.['idempotency-key']);

/**
 * Per route (@fastify/swagger `transform`): the error statuses every route of its kind can answer
 * are added to the ones the route names: 400 (a query or path value refused), 500; under /v1 also
 * 401, 403 and 429 (key, scope, rate limit); 404 with a path parameter; 413 and 415 where a body
 * is read; 409 where `Idempotency-Key` is taken.
 */
export function openapiTransform({ schema, url, route }: RouteInfo): { schema?: Json; url: string } {
  if (!schema || schema.hide) return { schema, url };
  const out: Json = { ...schema };
  if (out[DOCUMENTED_BODY]) {
    out.body = out[DOCUMENTED_BODY];
    delete out[DOCUMENTED_BODY];
  }
  const methods = [route.method].flat();
  const statuses = [400, 500];
  if (url.startsWith('/v1/')) statuses.push(401, 403, 429);
  if (url.includes(':')) statuses.push(404);
  if (methods.some((m) => m !== 'GET' && m !== 'HEAD')) statuses.push(413, 415);
  if (hasIdempotencyKey(out)) statuses.push(409);
  out.response = { ...errors(...statuses), ...(schema.response ?? {}) };
  // @fastify/swagger marks every body required, so generated clients would demand `body: {}`.
  if (acceptsEmptyBody(route)) out[EMPTY_BODY] = true;
  return { schema: out, url };
}

/**
 * The whole document (@fastify/swagger `transformObject`): the response headers every answer
 * carries, `Retry-After` on 409 and 429, `Idempotent-Replayed` on the 2xx of creates taking
 * `Idempotency-Key`, and the tag descriptions.
 */
export function finishOpenapiDocument({ openapiObject }: { openapiObject: Json }): Json {
  // A copy: the generated document may share objects with the route schemas Fastify validates with.
  const doc = hoistNamedSchemas(renameFormatBounds(JSON.parse(JSON.stringify(openapiObject))) as Json);
  doc.components = { ...doc.components, headers: { ...(doc.components?.headers ?? {}), ...HEADERS } };
  doc.tags = TAGS;
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(item)) {
      if (!op?.responses) continue;
      if (op[EMPTY_BODY]) {
        if (op.requestBody) op.requestBody.required = false;
        delete op[EMPTY_BODY];
      }
      const idempotent = (op.parameters ?? []).some((p: Json) => p.in === 'header' && p.name === 'idempotency-key');
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        response.headers = {
          'X-Request-Id': headerRef('RequestId'),
          'X-Service-Mode': headerRef('ServiceMode'),
          ...(status === '409' || status === '429' ? { 'Retry-After': headerRef('RetryAfter') } : {}),
          ...(idempotent && status.startsWith('2') ? { 'Idempotent-Replayed': headerRef('IdempotentReplayed') } : {}),
          ...(response.headers ?? {}),
        };
      }
    }
  }
  return doc;
}

/**
 * `formatMinimum` / `formatMaximum` (ajv-formats: the date range the API accepts) are not OpenAPI
 * keywords: kept as `x-formatMinimum` / `x-formatMaximum` extensions; the range is also in the
 * field's description.
 */
function renameFormatBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(renameFormatBounds);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k === 'formatMinimum' || k === 'formatMaximum' ? `x-${k}` : k] = renameFormatBounds(v);
  return out;
}
