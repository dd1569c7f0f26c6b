/**
 * The HTTP requests this process is answering now, counted at the server: from a request's arrival to the
 * close of its response (sent, or its connection lost). Background work that shares the process reads it
 * to let requests go first (the render jobs, src/prints/render-job.ts).
 *
 * In a supervised server (WEB_CONCURRENCY ≥ 1) the requests are answered by the web workers and the render
 * jobs run in the background worker: each web worker reports its count to the supervisor when it changed,
 * the supervisor sums them and forwards the sum to the background worker, which counts it as its own.
 */
import type { Server } from 'node:http';
import { Gauge } from 'prom-client';
import { processRegistry } from '../metrics.ts';

/** The message that carries a count between the supervised processes. */
export const REQUESTS_IN_FLIGHT_MESSAGE = 'pinkas:requests-in-flight';
export interface RequestsInFlightMessage {
  type: typeof REQUESTS_IN_FLIGHT_MESSAGE;
  n: number;
}
export const requestsInFlightMessage = (n: number): RequestsInFlightMessage => ({ type: REQUESTS_IN_FLIGHT_MESSAGE, n });

/** A web worker reports at most this often: a burst lasts seconds; a report per request would cost each request an IPC message. */
export const REPORT_EVERY_MS = 20;

let here = 0;
/** What other processes of the server reported (the background worker: the web workers' sum). */
let elsewhere = 0;
let changed: (() => void) | null = null;

new Gauge({
  name: 'pinkas_requests_in_flight',
  help: 'HTTP requests being answered now: by this process ("here"), or by the web workers as a supervised background worker hears of them ("elsewhere").',
  labelNames: ['counted'] as const,
  registers: [processRegistry],
  collect() {
    this.set({ counted: 'here' }, here);
    this.set({ counted: 'elsewhere' }, elsewhere);
  },
});

/** Counts the requests of `server` from now on. */
export function countRequestsInFlight(server: Server): void {
  server.on('request', (_req, res) => {
    here++;
    changed?.();
    res.once('close', () => {
      here--;
      changed?.();
    });
  });
}

/** Requests of this server not yet answered: this process's, and those the other processes reported. */
export const requestsInFlight = (): number => here + elsewhere;

const isMessage = (m: unknown): m is RequestsInFlightMessage =>
  typeof m === 'object' &&
  m !== null &&
  (m as { type?: unknown }).type === REQUESTS_IN_FLIGHT_MESSAGE &&
  Number.isInteger((m as { n?: unknown }).n) &&
  (m as { n: number }).n >= 0;

/**
 * In a supervised web worker: sends this process's count when it changed, at most every `everyMs` (the
 * count as it is then, so the last change is always sent). Answers a function that stops it.
 */
export function reportRequestsInFlight(
  send: (m: RequestsInFlightMessage) => void,
  { everyMs = REPORT_EVERY_MS, schedule = defaultSchedule }: { everyMs?: number; schedule?: Schedule } = {},
): () => void {
  let sent = 0;
  let pending: (() => void) | null = null;
  changed = () => {
    if (pending) return;
    pending = schedule(() => {
      pending = null;
      if (here === sent) return;
      sent = here;
      send(requestsInFlightMessage(sent));
    }, everyMs);
  };
  return () => {
    pending?.();
    pending = null;
    changed = null;
  };
}

/** Runs `fn` after `ms`; answers a function that cancels it. */
export type Schedule = (fn: () => void, ms: number) => () => void;
const defaultSchedule: Schedule = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

/** In the supervised background worker: takes a forwarded count (answers false for any other message). */
export function hearRequestsInFlight(message: unknown): boolean {
  if (!isMessage(message)) return false;
  elsewhere = message.n;
  return true;
}

/**
 * In the supervisor: the web workers' counts by worker. `report` and `forget` answer the new sum when it
 * changed, null when it did not (nothing to forward).
 */
export function requestsTally() {
  const counts = new Map<number, number>();
  let sum = 0;
  const settle = (): number | null => {
    let next = 0;
    for (const n of counts.values()) next += n;
    if (next === sum) return null;
    sum = next;
    return sum;
  };
  return {
    report(worker: number, message: unknown): number | null {
      if (!isMessage(message)) return null;
      counts.set(worker, message.n);
      return settle();
    },
    forget(worker: number): number | null {
      counts.delete(worker);
      return settle();
    },
    get sum() {
      return sum;
    },
  };
}
