import type { ErrorReason } from './http/openapi-reasons.ts';

/** The one error type of the service: the error handler writes `{error: message, reason}` with `status`. */
export class AppError extends Error {
  readonly status: number;
  /** One of the closed list (ERROR_REASONS), so a new reason is added there and reaches the OpenAPI enum. */
  readonly reason: ErrorReason;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string>;

  constructor(status: number, reason: ErrorReason, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.reason = reason;
    this.headers = headers;
  }
}

export const notFound = (what = 'resource') => new AppError(404, 'not_found', `${what} not found`);
export const validation = (field: string, problem: string) => new AppError(400, 'validation', `${field}: ${problem}`);
export const forbidden = (message: string) => new AppError(403, 'forbidden', message);
export const conflict = (message: string) => new AppError(409, 'conflict', message);
export const unauthorized = (message = 'missing, unknown, revoked or expired API key') => new AppError(401, 'unauthorized', message);
export const limitReached = (message: string) => new AppError(429, 'limit_reached', message);
export const unconfigured = (message: string) => new AppError(503, 'unconfigured', message);
