/** The closed lists of an export run, each once: the table, the route schema and the types read them. Pure. */

export const EXPORT_KINDS = ['openfrmt', 'pcn874'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

export const EXPORT_STATUSES = ['running', 'completed', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];
