/**
 * Every `reason` an error answer can carry (`{error, reason, requestId}`): the closed list the OpenAPI
 * document gives as the enum of `Error.reason`. test/contract/error-reasons.test.ts scans the source
 * for every reason written and fails on one missing here.
 */
export const ERROR_REASONS = [
  'validation',
  'unauthorized',
  'forbidden',
  'approval_required',
  'not_found',
  'conflict',
  'not_draft',
  'pdf_pending',
  'too_large',
  'doc_type_not_allowed',
  'allocation_required',
  'donation_approval_missing',
  'payments_mismatch',
  'unbalanced',
  'unknown_account',
  'account_closed',
  'period_closed',
  'rate_limited',
  'limit_reached',
  'quota_exceeded',
  'internal',
  'provider',
  'unconfigured',
  'unavailable',
] as const;
export type ErrorReason = (typeof ERROR_REASONS)[number];
