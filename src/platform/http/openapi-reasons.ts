/** A status the contract gives a reason in one named case, beside its usual one. */
interface StatusCase {
  readonly status: number;
  readonly when: string;
}

interface ReasonStatus {
  readonly status: number;
  /** When the reason answers `status`, if it has cases too. */
  readonly when?: string;
  readonly cases?: Readonly<Record<string, StatusCase>>;
}

/**
 * Every `reason` an error answer can carry (`{error, reason, requestId}`) and the HTTP status it
 * answers with: the one place a status is chosen (AppError and the error handler read it), and the
 * closed list the OpenAPI document gives as the enum of `Error.reason`. A reason keeps one status
 * (decisions.md "Error statuses"), except in the `cases` the contract names: a caller names the case,
 * never the number. docs/foundation.md's status table is compared with this one, and
 * test/contract/error-reasons.test.ts scans the source for every reason written.
 */
export const ERROR_STATUSES = {
  validation: {
    status: 400,
    cases: {
      mediaType: { status: 415, when: 'a content type the route does not accept' },
      requestTimeout: { status: 408, when: 'the request did not arrive in time' },
    },
  },
  unauthorized: { status: 401 },
  forbidden: { status: 403 },
  approval_required: { status: 403 },
  not_found: { status: 404 },
  conflict: { status: 409 },
  not_draft: { status: 409 },
  pdf_pending: { status: 409 },
  too_large: {
    status: 413,
    cases: { headers: { status: 431, when: 'the request line and headers' } },
  },
  doc_type_not_allowed: {
    status: 400,
    when: 'draft writes',
    cases: { atIssue: { status: 422, when: 'at issue' } },
  },
  allocation_required: { status: 422 },
  donation_approval_missing: { status: 422 },
  payments_mismatch: { status: 422 },
  unbalanced: { status: 422 },
  unknown_account: { status: 422 },
  account_closed: { status: 422 },
  period_closed: { status: 422 },
  rate_limited: { status: 429 },
  limit_reached: { status: 429 },
  quota_exceeded: { status: 429 },
  internal: { status: 500 },
  provider: { status: 502 },
  unconfigured: { status: 503 },
  unavailable: { status: 503 },
} as const satisfies Record<string, ReasonStatus>;

export type ErrorReason = keyof typeof ERROR_STATUSES;

export const ERROR_REASONS = Object.keys(ERROR_STATUSES) as ErrorReason[];

type CasesOf<R extends ErrorReason> = (typeof ERROR_STATUSES)[R] extends { cases: infer C } ? C : never;

/** The reasons the contract gives a second status. */
export type ReasonWithCases = { [R in ErrorReason]: CasesOf<R> extends never ? never : R }[ErrorReason];

/** The named cases of a reason's other statuses. */
export type StatusCaseOf<R extends ReasonWithCases> = keyof CasesOf<R> & string;

/** A reason's status, or its status in the named case. */
export function statusOf(reason: ErrorReason, statusCase?: string): number {
  const entry: ReasonStatus = ERROR_STATUSES[reason];
  if (statusCase === undefined) return entry.status;
  const found = entry.cases?.[statusCase];
  if (!found) throw new Error(`error reason ${reason} has no status case ${statusCase}`);
  return found.status;
}

/** Every status an error answer can carry, with its reasons in the table's order and when each applies. */
export function reasonsByStatus(): Map<number, { reason: ErrorReason; when?: string }[]> {
  const out = new Map<number, { reason: ErrorReason; when?: string }[]>();
  const add = (status: number, reason: ErrorReason, when?: string) => out.set(status, [...(out.get(status) ?? []), { reason, when }]);
  for (const reason of ERROR_REASONS) {
    const entry: ReasonStatus = ERROR_STATUSES[reason];
    add(entry.status, reason, entry.when);
    for (const c of Object.values(entry.cases ?? {})) add(c.status, reason, c.when);
  }
  return out;
}
