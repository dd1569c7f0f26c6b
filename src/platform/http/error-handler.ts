import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';
import { errorSummary } from '../logger.ts';

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** `/lines/0/quantity` in the body → `body.lines[0].quantity`. */
function fieldPath(context: string | undefined, err: AjvError): string {
  const parts = (err.instancePath ?? '')
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (err.keyword === 'additionalProperties' && err.params?.additionalProperty) parts.push(String(err.params.additionalProperty));
  if (err.keyword === 'required' && err.params?.missingProperty) parts.push(String(err.params.missingProperty));
  let out = context ?? 'body';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : `.${p}`;
  return out;
}

function problem(err: AjvError): string {
  switch (err.keyword) {
    case 'additionalProperties':
      return 'unknown field';
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of ${(err.params?.allowedValues as unknown[] | undefined)?.join(', ') ?? 'the allowed values'}`;
    default:
      return err.message ?? 'is invalid';
  }
}

/** Formats a schema validation failure as `field: problem` naming the field path. */
export function validationMessage(context: string | undefined, errors: AjvError[]): string {
  // The most specific error first: an unknown field or a missing one beats an "anyOf" summary.
  const ranked = [...errors].sort((a, b) => rank(a) - rank(b));
  const e = ranked[0];
  return `${fieldPath(context, e)}: ${problem(e)}`;
}
const rank = (e: AjvError) => (e.keyword === 'additionalProperties' || e.keyword === 'required' ? 0 : e.keyword === 'anyOf' || e.keyword === 'oneOf' ? 2 : 1);

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError & { validationContext?: string }, req, reply) => {
    if (err instanceof AppError) {
      reply.headers(err.headers);
      return reply.status(err.status).send({ error: err.message, reason: err.reason });
    }
    if (err.validation) {
      return reply.status(400).send({ error: validationMessage(err.validationContext, err.validation as AjvError[]), reason: 'validation' });
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.status(413).send({ error: 'the request body is larger than this endpoint accepts', reason: 'too_large' });
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.status(400).send({ error: 'body: malformed JSON', reason: 'validation' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.status(400).send({ error: 'Content-Type: send application/json', reason: 'validation' });
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return reply.status(400).send({ error: 'Content-Length does not match the body', reason: 'validation' });
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.status(err.statusCode).send({ error: err.message, reason: err.statusCode === 404 ? 'not_found' : 'validation' });
    }
    req.log.error({ err: errorSummary(err), url: req.url }, 'unexpected error');
    return reply.status(500).send({ error: 'internal error; it was logged', reason: 'internal' });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ error: `no route ${req.method} ${req.url.split('?')[0]}`, reason: 'not_found' });
  });
}
