import type { Domain } from '../domain.ts';
import { registerLedgerRoutes } from './routes.ts';

/** The journal and the trial balance: the routes. */
export const ledgerDomain: Domain = { name: 'ledger', api: registerLedgerRoutes };
