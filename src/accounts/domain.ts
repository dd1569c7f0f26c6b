import type { Domain } from '../domain.ts';
import { registerAccountRoutes } from './routes.ts';

/** Accounts, their API keys, plans and usage: the routes. */
export const accountsDomain: Domain = { name: 'accounts', api: registerAccountRoutes };
