/** The request-log domain's public surface (ARCHITECTURE.md, "Boundaries"): the buffer, its response hook, its route and retention. */
import type { Domain } from '../domain.ts';
import { registerRequestLogRoutes } from './routes.ts';
import { requestLogRetentionWorker } from './retention.ts';

export { RequestLogBuffer } from './buffer.ts';
export { installRequestLog } from './hook.ts';

export const requestLogDomain: Domain = { name: 'request-log', api: registerRequestLogRoutes, worker: (s) => requestLogRetentionWorker(s) };
export { listRequests } from './list.ts';
export { RequestsQuery } from './schemas.ts';
