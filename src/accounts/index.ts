/** The accounts domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { type Account, createAccount, getAccount, listAccounts, setAccountLimits, setAccountStatus } from './accounts.ts';
export { API_KEY_HEADER, createApiAuth, type ApiAuth, type KeySource } from './auth.ts';
export { accountLimitsOf, createAccountCaches, plansOf } from './caches.ts';
export { type KeyRecord, listKeys, mintKey, revokeKey, toKeyRecord } from './keys.ts';
export { getPlan, listPlans, upsertPlan } from './plans.ts';
export { usageByDay } from './usage.ts';
export { APPROVAL_STATUSES } from './lists.ts';
