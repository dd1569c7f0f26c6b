import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../platform/http/services.ts';
import { errorReasonOf } from '../platform/http/error-handler.ts';

/** Longest path kept; the query string is never kept (it may hold what a user searched for). */
const PATH_MAX = 512;

function pathOf(req: FastifyRequest): string {
  const url = req.url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  return path.length > PATH_MAX ? path.slice(0, PATH_MAX) : path;
}

/**
 * Records every answered request whose key was usable (a missing or unknown key belongs to no account) into
 * the process's buffer: no I/O here, the buffer writes batches (buffer.ts).
 */
export function installRequestLog(app: FastifyInstance, s: Services): void {
  app.addHook('onResponse', async (req, reply) => {
    const caller = req.caller;
    if (!caller) return;
    s.requestLog.add({
      mode: caller.mode,
      accountId: caller.accountId,
      keyPrefix: caller.keyPrefix,
      requestId: String(req.id),
      method: req.method,
      path: pathOf(req),
      status: reply.statusCode,
      reason: errorReasonOf(req) ?? null,
      durationMs: Math.round(reply.elapsedTime),
      at: s.clock.now().getTime(),
    });
  });
  app.addHook('onReady', async () => s.requestLog.start());
  // Every entry of this process is written before the app's connections close.
  app.addHook('onClose', async () => s.requestLog.stop());
}
