/**
 * A supervised server (WEB_CONCURRENCY ≥ 1) runs its web and background workers as node:cluster
 * workers, each with its own registry: a scrape reaches one web worker, which asks the supervisor,
 * which gathers every worker's registry with prom-client's AggregatorRegistry (counters and
 * histograms summed) and sends the text back. One scrape thus sees all processes.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { processRegistry } from './metrics.ts';

const SCRAPE_REQUEST = 'pinkas:metrics-scrape';
const SCRAPE_ANSWER = 'pinkas:metrics-scrape-answer';
const ANSWER_TIMEOUT_MS = 10_000;

interface ScrapeAnswer {
  type: typeof SCRAPE_ANSWER;
  id: number;
  text?: string;
  error?: string;
}

if (cluster.isWorker) {
  // Every worker answers the supervisor's gathering with its own registry (prom-client listens for
  // its requests once an AggregatorRegistry exists in the process).
  AggregatorRegistry.setRegistries([processRegistry]);
  new AggregatorRegistry();
}

/** In the supervisor: answers the workers' scrape requests with the metrics of all workers. */
export function serveClusterScrapes(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: unknown; id?: unknown }) => {
    if (message?.type !== SCRAPE_REQUEST) return;
    const reply = (answer: Omit<ScrapeAnswer, 'type' | 'id'>) => {
      // A worker that died meanwhile gets nothing.
      if (worker.isConnected()) worker.send({ type: SCRAPE_ANSWER, id: message.id, ...answer });
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }),
    );
  });
}

let nextId = 0;

/** True in a worker of a supervised server: its own registry is only a part of the picture. */
export const isClusterWorker = (): boolean => cluster.isWorker && typeof process.send === 'function';

/** In a worker: the metrics of every worker of the server, gathered by the supervisor. */
export function scrapeCluster(): Promise<string> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const done = (fn: () => void) => {
      clearTimeout(timer);
      process.off('message', onMessage);
      fn();
    };
    const onMessage = (m: ScrapeAnswer) => {
      if (m?.type !== SCRAPE_ANSWER || m.id !== id) return;
      done(() => (m.error !== undefined ? reject(new Error(m.error)) : resolve(m.text ?? '')));
    };
    const timer = setTimeout(() => done(() => reject(new Error('the supervisor did not answer in time'))), ANSWER_TIMEOUT_MS);
    process.on('message', onMessage);
    process.send!({ type: SCRAPE_REQUEST, id });
  });
}
