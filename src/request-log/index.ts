/** The request-log domain's public surface (ARCHITECTURE.md, "Boundaries"): the buffer, its response hook, the list. */
export { RequestLogBuffer } from './buffer.ts';
export { installRequestLog } from './hook.ts';
export { listRequests } from './list.ts';
export { RequestsQuery } from './schemas.ts';
