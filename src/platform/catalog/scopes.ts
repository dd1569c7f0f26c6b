/**
 * The scopes of an API key: what each one opens. A route names the one it needs (`config.scope`,
 * checked in accounts/auth.ts); key creation (console, CLI: accounts/keys.ts parseScopes) accepts only
 * these, and the key listing's enum comes from here. Adding a scope starts here.
 */
export const SCOPE_GRANTS = {
  businesses: 'Businesses and their settings, parties, ledger writes, webhooks, the allocation connection.',
  documents: 'Documents (drafts, issue, credit notes, prints, allocation requests); reading exchange rates.',
  expenses: 'Expenses: drafts, receipts, recording, reversal.',
  export: 'Exports, reports, files, backups; reading the ledger and VAT returns.',
  ocr: 'Scanning a receipt with OCR.',
} as const;

export type Scope = keyof typeof SCOPE_GRANTS;

/** The scopes, in catalog order (the order of the OpenAPI enum). */
export const SCOPES: readonly Scope[] = Object.keys(SCOPE_GRANTS) as Scope[];

/** What a key gets when its creator names no scope (all but `ocr`). */
export const DEFAULT_SCOPES: readonly Scope[] = ['businesses', 'documents', 'expenses', 'export'];

export const isScope = (name: string): name is Scope => Object.hasOwn(SCOPE_GRANTS, name);
