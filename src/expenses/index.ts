/** The expenses domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { RECEIPT_MIMES } from './receipt-bytes.ts';
export { listExpenses } from './rows.ts';
export { ListQuery as ExpenseListQuery, type ListQueryValue as ExpenseListQueryValue } from './schemas.ts';
