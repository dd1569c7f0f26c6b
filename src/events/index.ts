/** The events domain's public surface (ARCHITECTURE.md, "Boundaries"): the events API over the outbox, and its retention. */
import type { Domain } from '../domain.ts';
import { registerEventRoutes } from './routes.ts';
import { eventRetentionWorker } from './retention.ts';

export const eventsDomain: Domain = { name: 'events', api: registerEventRoutes, worker: (s) => eventRetentionWorker(s) };
export { listDocumentEvents } from './list.ts';
