/**
 * Request ids: a caller's own `X-Request-Id` is kept when it is 1–64 of `A-Z a-z 0-9 . _ : -`
 * (safe in headers, logs and JSON); anything else is replaced by a generated id, never refused.
 * The id is the response's `X-Request-Id`, the `requestId` of error bodies and the `reqId` of every
 * log line written while the request is served — also by services that log through the process
 * logger (`s.logger`), through the logger's mixin below.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { newId } from '../ids.ts';

export const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** Fastify's `genReqId`: the caller's id when well-formed, else a fresh one (as `newRequestId` of error-handler.ts). */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && CALLER_REQUEST_ID.test(given) ? given : newId('req');
}

const current = new AsyncLocalStorage<{ reqId: string }>();

/**
 * Runs the rest of each request (hooks, body parsing, handler, error handler) inside a context that
 * knows its id. Added first, so that even the authentication hooks' lines carry it.
 */
export function installRequestContext(app: FastifyInstance): void {
  app.addHook('onRequest', (req, _reply, done) => {
    current.run({ reqId: String(req.id) }, done);
  });
}

/**
 * The mixin of the process logger (src/platform/logger.ts): adds the current request's `reqId` to a
 * line written outside Fastify's request logger, which binds it already.
 */
export function requestLogFields(_fields: object, _level: number, logger: Logger): Record<string, string> {
  const request = current.getStore();
  if (!request) return {};
  const bound = (logger as unknown as Record<symbol, unknown>)[pino.symbols.chindingsSym];
  if (typeof bound === 'string' && bound.includes('"reqId":')) return {};
  return { reqId: request.reqId };
}
