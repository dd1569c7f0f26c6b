import type { Domain } from '../domain.ts';
import { registerExpenseRoutes } from './routes.ts';

/** Expenses and supplier payments: the routes. */
export const expensesDomain: Domain = { name: 'expenses', api: registerExpenseRoutes };
