/**
 * Every non-2xx answer of the API, as an Error: the service's `{error, reason, requestId}` plus the
 * HTTP status. Quote `requestId` when asking for support: it names every log line of the request.
 */
export class PinkasError extends Error {
  override readonly name = 'PinkasError';
  readonly status: number;
  /** A closed list (the OpenAPI `Error.reason` enum), e.g. `validation`, `conflict`, `pdf_pending`. */
  readonly reason: string;
  /** The request's id (body `requestId`, else the `X-Request-Id` header); null when the answer had none. */
  readonly requestId: string | null;
  /** Seconds to wait before trying again, when the answer said so. */
  readonly retryAfter: number | null;
  readonly body: unknown;

  constructor(answer: { status: number; reason: string; message: string; requestId: string | null; retryAfter?: number | null; body?: unknown }) {
    const { status, reason, message, requestId } = answer;
    super(requestId ? `${message} (${status} ${reason}, request ${requestId})` : `${message} (${status} ${reason})`);
    this.status = status;
    this.reason = reason;
    this.requestId = requestId;
    this.retryAfter = answer.retryAfter ?? null;
    this.body = answer.body;
  }

  /** From a response and its already parsed body (JSON object, text or nothing). */
  static from(response: Response, body: unknown): PinkasError {
    const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const text = typeof body === 'string' && body.length > 0 ? body.slice(0, 300) : null;
    const wait = retryAfterMs(response.headers.get('retry-after'), Date.now());
    return new PinkasError({
      status: response.status,
      reason: typeof b.reason === 'string' ? b.reason : `http_${response.status}`,
      message: typeof b.error === 'string' ? b.error : (text ?? (response.statusText || 'request failed')),
      requestId: typeof b.requestId === 'string' ? b.requestId : response.headers.get('x-request-id'),
      retryAfter: wait === null ? null : Math.ceil(wait / 1000),
      body,
    });
  }
}

/** `Retry-After` (seconds or an HTTP date) in milliseconds from `nowMs`; null when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number): number | null {
  if (header === null || header.trim() === '') return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
