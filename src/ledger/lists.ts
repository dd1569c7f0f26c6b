/** The closed lists of the books, each once: the tables' column types, the route schemas and the types read them. Pure. */

export const ACCOUNT_KINDS = ['asset', 'liability', 'equity', 'revenue', 'expense'] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

/** What made a journal entry. */
export const ENTRY_SOURCES = ['document', 'expense', 'manual', 'reversal', 'payment'] as const;
export type EntrySource = (typeof ENTRY_SOURCES)[number];
