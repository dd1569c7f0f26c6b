/** The expenses domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { RECEIPT_MIMES } from './receipt-bytes.ts';
export { registerExpenseRoutes } from './routes.ts';
