import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { enumOf } from './enums.ts';
import { Type } from 'typebox';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { errorSummary } from '../logger.ts';
import { ERROR_REASONS, statusOf, type ErrorReason } from './openapi-reasons.ts';

/**
 * Every failure body: `{error, reason, requestId}`. `requestId` is the request's id (Fastify's
 * `req.id`), also sent as `X-Request-Id` and bound to every log line of the request as `reqId`.
 */
export const ErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'Human-readable, safe to log; a validation error starts with the field path.' }),
    reason: enumOf(ERROR_REASONS, { description: 'Stable machine code, one of a closed list.' }),
    requestId: Type.String({ description: 'The id of the request (also the X-Request-Id header and the reqId of its log lines).' }),
  },
  { $id: 'Error', additionalProperties: false, description: 'Every failure: `{error, reason, requestId}`.' },
);

/** A fresh request id: `req_` + time + 80 random bits, unique across processes and runs. */
export const newRequestId = (): string => newId('req');

const reasons = new WeakMap<FastifyRequest, ErrorReason>();

/** The `reason` of the error a request was answered with (for the request log), or undefined. */
export const errorReasonOf = (req: FastifyRequest): ErrorReason | undefined => reasons.get(req);

/**
 * The one way an error answer is written, with the status of its reason (ERROR_STATUSES). The body
 * is serialized here, so no route response schema can drop or reshape a field of it.
 */
export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  const requestId = String(reply.request.id);
  reasons.set(reply.request, error.reason);
  return reply
    .status(error.status)
    .headers(error.headers)
    .header('X-Request-Id', requestId)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error: error.message, reason: error.reason, requestId }));
}

export interface AjvError {
  instancePath?: string;
  /** Where the failed keyword is in the schema: a union branch's errors lie under `<union>/<i>/`. */
  schemaPath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
  /** With ajv's `verbose`: the schema holding the failed keyword, and the value. */
  parentSchema?: Record<string, unknown>;
  data?: unknown;
}

const segmentsOf = (e: AjvError) =>
  (e.instancePath ?? '')
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));

/** `/lines/0/quantity` in the body → `body.lines[0].quantity`. */
function fieldPath(context: string | undefined, err: AjvError): string {
  const parts = segmentsOf(err);
  if (err.keyword === 'additionalProperties' && err.params?.additionalProperty) parts.push(String(err.params.additionalProperty));
  if (err.keyword === 'required' && err.params?.missingProperty) parts.push(String(err.params.missingProperty));
  let out = context ?? 'body';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : /^[A-Za-z0-9_$-]+$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`;
  return out;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};
const typeWord = (t: unknown) => TYPE_WORDS[String(t)] ?? String(t);
const literal = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** `a`, `a or b`, `a, b or c`. */
function orList(items: string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** The values a schema allows, said as a person would: `one of 305, 320, 400`, `a string or null`. */
function allowedBy(schema: Record<string, unknown>): string {
  const literals: unknown[] = [];
  const kinds: string[] = [];
  const visit = (s: Record<string, unknown>) => {
    const branches = (s.anyOf ?? s.oneOf) as Record<string, unknown>[] | undefined;
    if (Array.isArray(branches)) branches.forEach(visit);
    else if ('const' in s) literals.push(s.const);
    else if (Array.isArray(s.enum)) literals.push(...s.enum);
    else if (s.type !== undefined) for (const t of [s.type].flat()) kinds.push(s.format === 'date' ? 'a date YYYY-MM-DD' : typeWord(t));
    else kinds.push('another accepted value');
  };
  visit(schema);
  const words = [...new Set(kinds)];
  if (literals.length === 0) return orList(words);
  const lits = literals.length === 1 ? literal(literals[0]) : `one of ${literals.map(literal).join(', ')}`;
  return words.length ? `${lits} or ${orList(words)}` : lits;
}

function formatProblem(format: string, data: unknown): string {
  switch (format) {
    case 'date':
      return typeof data === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(data) ? `"${data}" is not a calendar date` : 'must be a date YYYY-MM-DD';
    case 'date-time':
      return 'must be a date-time in RFC 3339 form, e.g. 2026-03-01T08:00:00.000Z';
    case 'time':
      return 'must be a time HH:MM:SS';
    case 'email':
      return 'must be an email address';
    case 'uri':
    case 'url':
      return 'must be an absolute URL';
    case 'uuid':
      return 'must be a UUID';
    default:
      return `must be a valid ${format}`;
  }
}

const LIMIT_KEYWORD_LIST = [
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
] as const;
type LimitKeyword = (typeof LIMIT_KEYWORD_LIST)[number];
const LIMIT_KEYWORDS = new Set<string>(LIMIT_KEYWORD_LIST);
const isLimitKeyword = (k: string | undefined): k is LimitKeyword => LIMIT_KEYWORDS.has(k ?? '');

/** A failed bound (one of LIMIT_KEYWORDS), in words. */
function limitProblem(keyword: LimitKeyword, limit: unknown): string {
  switch (keyword) {
    case 'minimum':
      return `must be >= ${limit}`;
    case 'exclusiveMinimum':
      return `must be > ${limit}`;
    case 'maximum':
      return `must be <= ${limit}`;
    case 'exclusiveMaximum':
      return `must be < ${limit}`;
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters long`;
    case 'maxLength':
      return `must be at most ${limit} characters long`;
    case 'minItems':
      return limit === 1 ? 'must not be empty' : `must have at least ${limit} items`;
    case 'maxItems':
      return `must have at most ${limit} items`;
    case 'minProperties':
      return `must have at least ${limit} fields`;
    case 'maxProperties':
      return `must have at most ${limit} fields`;
  }
}

/** One failed keyword, in words: what the value must be. */
function problem(err: AjvError, context: string | undefined): string {
  const p = err.params ?? {};
  const parent = err.parentSchema ?? {};
  const limit = p.limit;
  // Errors built without ajv's params (older callers, hand-made ones) keep their own words.
  if (isLimitKeyword(err.keyword)) return limit === undefined ? (err.message ?? 'is invalid') : limitProblem(err.keyword, limit);
  switch (err.keyword) {
    case 'additionalProperties':
      return 'unknown field';
    case 'required':
      return 'is required';
    case 'type':
      if (context === 'querystring' && Array.isArray(err.data)) return 'is given more than once; give it once';
      if (err.instancePath === '' && context === 'body' && (err.data === undefined || err.data === null)) return `is required (${typeWord(p.type)})`;
      return `must be ${orList(String(p.type).split(',').map(typeWord))}`;
    case 'const':
      return `must be ${literal(p.allowedValue)}`;
    case 'enum':
      return `must be one of ${((p.allowedValues as unknown[] | undefined) ?? []).map(literal).join(', ')}`;
    case 'multipleOf':
      return `must be a multiple of ${p.multipleOf}`;
    case 'uniqueItems':
      return `must not repeat an item (items ${p.j} and ${p.i} are the same)`;
    case 'pattern':
      return typeof parent.description === 'string' && parent.description.length <= 80
        ? `must have the form ${parent.description}`
        : `must match the pattern ${p.pattern}`;
    case 'format':
      return formatProblem(String(p.format), err.data);
    case 'formatMinimum':
    case 'formatMaximum':
    case 'formatExclusiveMinimum':
    case 'formatExclusiveMaximum': {
      if (parent.formatMinimum !== undefined && parent.formatMaximum !== undefined) {
        return `must be between ${parent.formatMinimum} and ${parent.formatMaximum}`;
      }
      return `must be ${String(p.comparison ?? '').startsWith('>') ? 'at or after' : 'at or before'} ${limit}`;
    }
    case 'anyOf':
    case 'oneOf':
      return err.parentSchema ? `must be ${allowedBy(err.parentSchema)}` : 'does not match any accepted form';
    default:
      return err.message ?? 'is invalid';
  }
}

const COMBINATORS = new Set(['anyOf', 'oneOf']);
const MISMATCH = new Set(['type', 'const', 'enum']);

type Schema = Record<string, unknown>;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const branchesOf = (s: Schema): Schema[] | null => {
  const branches = s.anyOf ?? s.oneOf;
  return Array.isArray(branches) ? (branches as Schema[]) : null;
};

/**
 * How far an object resembles a union's branch: the number of its fields the branch declares (a
 * field the branch fixes to a constant counts only with that value); -1 for a branch that is no
 * object. A branch that is itself a union resembles it as its closest branch does.
 */
function resemblance(branch: Schema, data: Record<string, unknown>): number {
  const nested = branchesOf(branch);
  if (nested) return Math.max(-1, ...nested.map((b) => resemblance(b, data)));
  if (!isRecord(branch.properties)) return -1;
  const declared = branch.properties as Record<string, Schema>;
  return Object.keys(data).filter((k) => isRecord(declared[k]) && (!('const' in declared[k]) || declared[k].const === data[k])).length;
}

/**
 * Where an object failed a union (ajv lists the failure of every branch, then the union's), keeps
 * only the errors of the branches the object resembles most, and drops the union's own error when
 * one branch is left: an inline party with an unknown field is told about that field, not that the
 * other branch's `partyId` is missing. A value that is no object is left to the union as a whole.
 */
function narrowUnions(errors: AjvError[]): AjvError[] {
  let kept = errors;
  for (const union of errors) {
    const branches = union.parentSchema && union.keyword && COMBINATORS.has(union.keyword) ? branchesOf(union.parentSchema) : null;
    if (!branches || !union.schemaPath || !isRecord(union.data)) continue;
    const prefix = `${union.schemaPath}/`;
    const at = union.instancePath ?? '';
    const branchOf = (e: AjvError) =>
      e.schemaPath?.startsWith(prefix) && (e.instancePath ?? '').startsWith(at) ? Number(e.schemaPath.slice(prefix.length).split('/')[0]) : null;
    if (!kept.some((e) => branchOf(e) !== null)) continue;
    const data = union.data;
    const scores = branches.map((b) => resemblance(b, data));
    const best = Math.max(...scores);
    kept = kept.filter((e) => {
      const branch = branchOf(e);
      return branch === null || scores[branch] === best;
    });
    if (scores.filter((s) => s === best).length === 1) kept = kept.filter((e) => e !== union);
  }
  return kept;
}

/**
 * Formats a schema validation failure as `field: problem`. With a union (anyOf), ajv lists the
 * failure of every branch before the union's own: an object keeps the branches it resembles most
 * (narrowUnions); then the deepest field wins (the branch the value went furthest into); an unknown
 * or a missing field beats a value problem at the same depth; and when every branch failed on the
 * value's type or constant, the union is described as a whole ("must be one of 305, 320, 400",
 * "must be a string or null").
 */
export function validationMessage(context: string | undefined, all: AjvError[]): string {
  const errors = narrowUnions(all);
  const leaves = errors.filter((e) => !COMBINATORS.has(e.keyword ?? '') && e.keyword !== 'if');
  if (leaves.length === 0) {
    const e = errors[errors.length - 1] ?? {};
    return `${fieldPath(context, e)}: ${problem(e, context)}`;
  }
  const depth = Math.max(...leaves.map((e) => segmentsOf(e).length));
  const deepest = leaves.filter((e) => segmentsOf(e).length === depth);
  const pick = deepest.find((e) => e.keyword === 'additionalProperties' || e.keyword === 'required') ?? deepest.find((e) => !MISMATCH.has(e.keyword ?? ''));
  if (pick) return `${fieldPath(context, pick)}: ${problem(pick, context)}`;
  const first = deepest[0];
  const unions = errors.filter((e) => COMBINATORS.has(e.keyword ?? '') && e.instancePath === first.instancePath && e.parentSchema);
  const union = unions[unions.length - 1];
  if (union && !(context === 'querystring' && Array.isArray(first.data))) return `${fieldPath(context, first)}: must be ${allowedBy(union.parentSchema!)}`;
  return `${fieldPath(context, first)}: ${problem(first, context)}`;
}

/** The answer to the errors Fastify and its plugins raise on their own. */
function frameworkAnswer(err: FastifyError, req: FastifyRequest): AppError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('too_large', 'the request body is larger than this endpoint accepts');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('validation', 'body: malformed JSON');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const given = req.headers['content-type'];
      const accepted = req.server.hasContentTypeParser('multipart/form-data') ? 'application/json or multipart/form-data' : 'application/json';
      const problem = given ? `"${given}" is not accepted here` : 'missing for a request with a body';
      return AppError.inCase('validation', 'mediaType', `Content-Type: ${problem}; send ${accepted}`);
    }
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('validation', 'Content-Length does not match the body');
    case 'FST_ERR_BAD_URL':
      return new AppError('validation', 'path: is not a valid URL (malformed percent-encoding or invalid UTF-8)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('validation', 'path: a path segment is longer than this API accepts');
  }
  return null;
}

/** The reasons another 4xx a plugin raises may be, found by their status; any other 4xx is `validation`. */
const FRAMEWORK_REASONS: readonly ErrorReason[] = ['unauthorized', 'forbidden', 'not_found', 'conflict', 'too_large', 'rate_limited'];
const frameworkStatusError = (status: number, message: string) => new AppError(FRAMEWORK_REASONS.find((r) => statusOf(r) === status) ?? 'validation', message);

/** For Fastify's `frameworkErrors` option: errors raised before a route is found (bad URL, long param). */
export function answerFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, frameworkAnswer(err, req) ?? new AppError('validation', 'the request could not be routed'));
}

/**
 * For Fastify's `clientErrorHandler`: a request that is not even valid HTTP (or whose headers are
 * too large) never becomes a Fastify request; it is answered on the socket, in the same shape.
 */
export function answerClientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const error =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? AppError.inCase('validation', 'requestTimeout', 'the request did not arrive in time')
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? AppError.inCase('too_large', 'headers', 'the request line and headers are larger than the server accepts')
        : new AppError('validation', 'the request is not valid HTTP');
  const { status } = error;
  const requestId = newRequestId();
  this.log.info({ reqId: requestId, code: err.code, status }, 'malformed HTTP request refused');
  const body = JSON.stringify({ error: error.message, reason: error.reason, requestId });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nX-Service-Mode: live\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError & { validationContext?: string }, req, reply) => {
    if (err instanceof AppError) return sendError(reply, err);
    if (err.validation) return sendError(reply, new AppError('validation', validationMessage(err.validationContext, err.validation)));
    const known = frameworkAnswer(err, req);
    if (known) return sendError(reply, known);
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return sendError(reply, frameworkStatusError(err.statusCode, err.message));
    }
    req.log.error({ err: errorSummary(err), url: req.url }, 'unexpected error');
    return sendError(reply, new AppError('internal', 'internal error; it was logged'));
  });

  app.setNotFoundHandler((req, reply) => sendError(reply, new AppError('not_found', `no route ${req.method} ${req.url.split('?')[0]}`)));
}
