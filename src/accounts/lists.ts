/** The closed lists of accounts, each once: the tables, the route schemas and the types read them. Pure. */

/** An account's approval (a business's row carries its account's). */
export const APPROVAL_STATUSES = ['approved', 'pending', 'suspended'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
