import type { Domain } from '../domain.ts';
import { registerExportRoutes } from './routes.ts';

/** OPENFRMT and PCN874 export runs: the routes. */
export const exportsDomain: Domain = { name: 'exports', api: registerExportRoutes };
