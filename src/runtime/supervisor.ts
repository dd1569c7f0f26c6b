/**
 * WEB_CONCURRENCY ≥ 1: this process (the supervisor) owns the databases — it starts the embedded
 * cluster, migrates, releases dead leases and creates the first key — then forks WEB_CONCURRENCY web
 * workers that share the port, and one background worker that runs at BACKGROUND_NICE so rendering
 * and delivery yield the CPU to requests. Every shared state lives in PostgreSQL (the rate limiter
 * too, in this mode), so the workers need nothing from each other. A worker that dies is forked
 * again (after a growing pause if it keeps dying); SIGTERM/SIGINT drain the workers, then stop
 * the cluster.
 */
import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import type { Logger } from '../platform/logger.ts';
import { serveClusterScrapes } from '../platform/metrics-cluster.ts';
import { hearRequestsInFlight, reportRequestsInFlight, requestsInFlightMessage, requestsTally } from '../platform/http/requests-in-flight.ts';

export type Role = 'web' | 'background';
export const ROLE_VARIABLE = 'PINKAS_PROCESS_ROLE';

const STOP_TIMEOUT_MS = 30_000;

export interface Supervisor {
  /** Resolves once every web worker listens. */
  ready: Promise<void>;
  /** Drains and ends every worker. */
  stop(): Promise<void>;
}

export function supervise(webWorkers: number, logger: Logger): Supervisor {
  let stopping = false;
  const roles = new Map<ClusterWorker, Role>();
  // The web workers' requests in flight, forwarded to the background worker: its render jobs give way to a burst.
  const requests = requestsTally();
  const toBackground = (n: number | null) => {
    if (n === null) return;
    for (const [w, role] of roles) if (role === 'background' && w.isConnected()) w.send(requestsInFlightMessage(n));
  };
  const pauseMs: Record<Role, number> = { web: 0, background: 0 };
  let listening = 0;
  let started = false;
  let markReady!: () => void;
  let failStart!: (err: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = () => {
      started = true;
      resolve();
    };
    failStart = reject;
  });

  const fork = (role: Role) => {
    const worker = cluster.fork({ [ROLE_VARIABLE]: role });
    roles.set(worker, role);
    const startedAt = Date.now();
    if (role === 'web') {
      worker.once('listening', () => {
        if (++listening === webWorkers) markReady();
      });
      worker.on('message', (m: unknown) => toBackground(requests.report(worker.id, m)));
    } else {
      // A background worker forked again hears the sum at once.
      worker.once('online', () => {
        if (requests.sum > 0) worker.send(requestsInFlightMessage(requests.sum));
      });
    }
    worker.once('exit', (code, signal) => {
      roles.delete(worker);
      if (role === 'web') toBackground(requests.forget(worker.id));
      if (stopping) return;
      if (!started) {
        // A worker that cannot start (a port in use, databases not answering) will not start when forked again.
        failStart(new Error(`a ${role} worker process exited during the start (code ${code}, signal ${signal})`));
        return;
      }
      // A worker that lived a while restarts at once; one that keeps dying waits longer each time.
      pauseMs[role] = Date.now() - startedAt > 60_000 ? 0 : Math.min(Math.max(pauseMs[role] * 2, 500), 30_000);
      logger.error({ role, pid: worker.process.pid, code, signal, restartInMs: pauseMs[role] }, 'a worker process stopped; starting another');
      setTimeout(() => {
        if (!stopping) fork(role);
      }, pauseMs[role]).unref();
    });
  };

  serveClusterScrapes();
  for (let i = 0; i < webWorkers; i++) fork('web');
  fork('background');

  return {
    ready,
    stop: async () => {
      stopping = true;
      await Promise.all([...roles.keys()].map(stopWorker));
    },
  };
}

/**
 * In a worker: what it tells the supervisor, or hears from it. A web worker reports its requests in flight;
 * the background worker hears their sum (its render jobs give way to a burst). Answers a function that stops it.
 */
export function joinSupervisor(role: Role): () => void {
  if (role === 'web') {
    return reportRequestsInFlight((m) => {
      // A supervisor that is gone hears nothing; the worker stops with it (onStopSignals, whenOrphaned).
      if (process.connected) process.send!(m);
    });
  }
  process.on('message', hearRequestsInFlight);
  return () => process.off('message', hearRequestsInFlight);
}

/** SIGTERM (drain), then SIGKILL after STOP_TIMEOUT_MS; resolves when the worker has exited. */
function stopWorker(w: ClusterWorker): Promise<void> {
  return new Promise<void>((resolve) => {
    if (w.isDead()) return resolve();
    const timer = setTimeout(() => w.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
    w.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    w.process.kill('SIGTERM');
  });
}
