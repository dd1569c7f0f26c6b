import type { Domain } from '../domain.ts';
import { registerReportRoutes } from './routes.ts';

/** Reports over documents, expenses and VAT: the routes. */
export const reportsDomain: Domain = { name: 'reports', api: registerReportRoutes };
