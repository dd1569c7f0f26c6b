import { statusOf, type ErrorReason, type ReasonWithCases, type StatusCaseOf } from './http/openapi-reasons.ts';

/**
 * The one error type of the service: the error handler writes `{error: message, reason}` with the
 * reason's status from ERROR_STATUSES, so no throw site picks a status of its own.
 */
export class AppError extends Error {
  readonly status: number;
  /** One of the closed list (ERROR_STATUSES), so a new reason is added there and reaches the OpenAPI enum. */
  readonly reason: ErrorReason;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string>;

  constructor(reason: ErrorReason, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.status = statusOf(reason);
    this.reason = reason;
    this.headers = headers;
  }

  /** The reason in a case the contract gives it another status (ERROR_STATUSES `cases`). */
  static inCase<R extends ReasonWithCases>(reason: R, statusCase: StatusCaseOf<R>, message: string): AppError {
    return Object.assign(new this(reason, message), { status: statusOf(reason, statusCase) });
  }
}

export const notFound = (what = 'resource') => new AppError('not_found', `${what} not found`);
export const validation = (field: string, problem: string) => new AppError('validation', `${field}: ${problem}`);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const conflict = (message: string) => new AppError('conflict', message);
export const unauthorized = (message = 'missing, unknown, revoked or expired API key') => new AppError('unauthorized', message);
export const limitReached = (message: string) => new AppError('limit_reached', message);
export const unconfigured = (message: string) => new AppError('unconfigured', message);
