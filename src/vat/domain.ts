import type { Domain } from '../domain.ts';
import { registerVatRoutes } from './routes.ts';

/** VAT reports and the PCN874 file: the routes. */
export const vatDomain: Domain = { name: 'vat', api: registerVatRoutes };
