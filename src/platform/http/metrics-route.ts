/**
 * GET /metrics (Prometheus text format) on the public port, behind `Authorization: Bearer
 * <METRICS_TOKEN>`; without METRICS_TOKEN it answers 503 `unconfigured`, in every environment, so it
 * is never open by default. Also times every request for the HTTP metrics.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, unconfigured } from '../errors.ts';
import { countHttpRequest, processRegistry, trackDatabasePools } from '../metrics.ts';
import { isClusterWorker, scrapeCluster } from '../metrics-cluster.ts';
import { queueMetricsText } from '../metrics-queues.ts';
import type { Services } from './services.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

function checkToken(req: FastifyRequest, token: string | null): void {
  if (token === null) throw unconfigured('metrics are off: set METRICS_TOKEN (at least 16 characters) and scrape with Authorization: Bearer <token>');
  const given = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ''))?.[1];
  // Digests have one length, so the comparison takes the same time whatever was sent.
  if (given === undefined || !timingSafeEqual(digest(given), digest(token))) {
    throw new AppError('unauthorized', 'metrics need Authorization: Bearer <METRICS_TOKEN>', { 'WWW-Authenticate': 'Bearer' });
  }
}

async function processMetricsText(): Promise<string> {
  if (!isClusterWorker()) return processRegistry.metrics();
  try {
    return await scrapeCluster();
  } catch (err) {
    // Only this worker's part would make the sums jump down and up between scrapes: refuse instead.
    throw new AppError('unavailable', `the metrics of the worker processes could not be gathered: ${(err as Error).message}`);
  }
}

export function installMetrics(app: FastifyInstance, s: Services): void {
  trackDatabasePools(s.databases);
  app.addHook('onResponse', async (req, reply) => {
    countHttpRequest(req.method, req.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    checkToken(req, s.config.metricsToken);
    const [processText, queueText] = await Promise.all([processMetricsText(), queueMetricsText(s.databases, s.clock)]);
    return reply.type(processRegistry.contentType).send(`${processText.trimEnd()}\n${queueText}`);
  });
}
