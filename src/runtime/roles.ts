/**
 * What a server process does, by role: `web` answers HTTP, `background` runs the durable jobs and
 * the domains' workers (webhook delivery, allocation, console pruning). One process may do both
 * (WEB_CONCURRENCY=0, the default) or the supervisor forks them (src/runtime/supervisor.ts).
 */
import type { FastifyInstance } from 'fastify';
import { errorSummary } from '../platform/logger.ts';
import { JobRunner } from '../platform/jobs.ts';
import { trackDatabasePools } from '../platform/metrics.ts';
import type { Services } from '../platform/http/services.ts';
import { startInvalidation, stopInvalidation } from '../platform/db/invalidation.ts';
import { buildApp } from '../app.ts';
import { countRequestsInFlight } from '../platform/http/requests-in-flight.ts';
import { trackSilentConnections } from '../platform/http/silent-connections.ts';
import { allJobHandlers, domains, type Worker } from '../domains.ts';

export interface Running {
  /** Stops gracefully: requests in flight get their answers, work in hand finishes. */
  stop(): Promise<void>;
}

const SILENT_SWEEP_MS = 100;

/** Serves the API on config.port (shared by every web worker of a supervisor). */
export async function startWeb(s: Services): Promise<Running & { app: FastifyInstance }> {
  const app = await buildApp(s);
  // Before the first request: the caches answer from memory only while their channel listens.
  await startInvalidation(s.invalidation);
  let stopping = false;
  // While draining, a request in flight gets its answer and then its connection closes, so that an
  // idle keep-alive connection of a client does not hold the shutdown open.
  app.addHook('onSend', async (_req, reply, payload) => {
    if (stopping) reply.header('connection', 'close');
    return payload;
  });
  countRequestsInFlight(app.server);
  const closeSilentConnections = trackSilentConnections(app.server);
  await app.listen({ port: s.config.port, host: s.config.host });
  const flushTimer = setInterval(() => {
    s.requestCounter.flush().catch((err) => s.logger.warn({ err: errorSummary(err) }, 'usage flush failed'));
  }, 5_000);
  flushTimer.unref();
  return {
    app,
    stop: async () => {
      stopping = true;
      clearInterval(flushTimer);
      const closed = app.close();
      // Until the server stops accepting (after the close hooks), a connection may still arrive silent.
      closeSilentConnections();
      const sweep = setInterval(closeSilentConnections, SILENT_SWEEP_MS);
      await closed.finally(() => clearInterval(sweep));
      await stopInvalidation(s.invalidation);
      await s.requestCounter.flush().catch(() => {});
    },
  };
}

/** Runs the job runner and every domain's worker. */
export function startBackground(s: Services): Running {
  trackDatabasePools(s.databases);
  const workers: Worker[] = domains.flatMap((d) => (d.worker ? [d.worker(s)] : []));
  workers.push(new JobRunner({ databases: s.databases, clock: s.clock, logger: s.logger }, allJobHandlers(s)).start());
  return {
    stop: async () => {
      await Promise.allSettled(workers.map((w) => w.stop()));
      // The renders in hand finished with the job runner; the threads go.
      await s.pdfRenderer.close();
    },
  };
}
