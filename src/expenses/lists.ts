/** The closed lists of an expense, each once: the table, the schemas, the OCR's JSON schema and the types read them. Pure. */

export const EXPENSE_STATUSES = ['draft', 'recorded'] as const;
export type ExpenseStatus = (typeof EXPENSE_STATUSES)[number];

/** How the expense came to be. */
export const EXPENSE_SOURCES = ['manual', 'upload', 'scan', 'reversal', 'redraft'] as const;
export type ExpenseSource = (typeof EXPENSE_SOURCES)[number];

export const SUPPLIER_DOC_TYPES = ['tax_invoice', 'tax_invoice_receipt', 'credit_invoice', 'receipt', 'import_entry', 'other'] as const;
export type SupplierDocType = (typeof SUPPLIER_DOC_TYPES)[number];
