/**
 * The HTTP requests this process is answering now, counted at the server: from a request's arrival to the
 * close of its response (sent, or its connection lost). Background work that shares the process reads it
 * to let requests go first (the render jobs, src/prints/render-job.ts).
 */
import type { Server } from 'node:http';

let inFlight = 0;

/** Counts the requests of `server` from now on. */
export function countRequestsInFlight(server: Server): void {
  server.on('request', (_req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
  });
}

/** Requests of this process's counted servers not yet answered. */
export const requestsInFlight = (): number => inFlight;
