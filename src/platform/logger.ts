import pino, { type Logger } from 'pino';
import { requestLogFields } from './http/request-id.ts';

export type { Logger };

/** Logs go to stderr so that CLI stdout stays one JSON object. A line written while a request is served carries its `reqId`. */
export function createLogger(level: string): Logger {
  return pino({ level, mixin: requestLogFields }, pino.destination(2));
}

/** pg errors can carry huge payloads (queries, parameters); keep only what helps. */
export function errorSummary(err: unknown): { code?: string; message: string } {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; message?: unknown; cause?: unknown };
    const inner = e.cause && typeof e.cause === 'object' ? (e.cause as { code?: unknown; message?: unknown }) : null;
    const code = typeof inner?.code === 'string' ? inner.code : typeof e.code === 'string' ? e.code : undefined;
    const message = typeof inner?.message === 'string' ? inner.message : String(e.message ?? err);
    return { code, message: message.slice(0, 500) };
  }
  return { message: String(err).slice(0, 500) };
}
