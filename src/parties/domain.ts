import type { Domain } from '../domain.ts';
import { registerPartyRoutes } from './routes.ts';

/** Customers and suppliers: the routes. */
export const partiesDomain: Domain = { name: 'parties', api: registerPartyRoutes };
