import type { Domain } from '../domain.ts';
import { registerRequestLogRoutes } from './routes.ts';
import { requestLogRetentionWorker } from './retention.ts';

/** The request log: its route, and its retention. */
export const requestLogDomain: Domain = { name: 'request-log', api: registerRequestLogRoutes, worker: (s) => requestLogRetentionWorker(s) };
