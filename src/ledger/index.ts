/** The ledger domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { INPUT_VAT, INPUT_VAT_FIXED_ASSETS, OUTPUT_VAT, taxIdOfAccountCode } from './chart.ts';
export { documentJournalCall, expenseSupplierAccount, inClosedPeriod, postExpenseEntry, postSupplierPaymentEntry } from './post.ts';
export { ENTRY_SOURCES, type EntrySource } from './lists.ts';
export { forgetAccounts, rememberAccounts, unknownAccounts } from './known-accounts.ts';
export { trialBalances, type TrialBalanceRow } from './store.ts';
