import type { Domain } from '../domain.ts';
import { registerEventRoutes } from './routes.ts';
import { eventRetentionWorker } from './retention.ts';

/** The events API over the outbox, and its retention. */
export const eventsDomain: Domain = { name: 'events', api: registerEventRoutes, worker: (s) => eventRetentionWorker(s) };
