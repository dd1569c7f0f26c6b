/**
 * A fetch that tries a request again when trying again is safe: on network errors and 5xx when the
 * request is idempotent (GET, PUT, DELETE, or any request carrying an Idempotency-Key), and on
 * 429 always (a rate-limited request was not processed). Waits what Retry-After says (capped),
 * else an exponential backoff with jitter; gives up after `maxAttempts`.
 */
import { retryAfterMs } from './errors.js';

export interface RetryOptions {
  /** Attempts in all, the first included (default 3; 1 turns retries off). */
  maxAttempts?: number;
  /** First backoff in ms, doubled per attempt (default 250). */
  baseDelayMs?: number;
  /** The longest wait, Retry-After included (default 30 000). */
  maxDelayMs?: number;
  /** Injected by tests; default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

const REPLAYABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function retryingFetch(fetchFn: (request: Request) => Promise<Response>, o: RetryOptions = {}): (request: Request) => Promise<Response> {
  const maxAttempts = Math.max(1, o.maxAttempts ?? 3);
  const base = o.baseDelayMs ?? 250;
  const cap = o.maxDelayMs ?? 30_000;
  const sleep = o.sleep ?? defaultSleep;
  const backoff = (attempt: number) => Math.min(cap, base * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));

  return async (request) => {
    const replayable = REPLAYABLE_METHODS.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= maxAttempts;
      let response: Response;
      try {
        // A clone per attempt: a body can be read only once.
        response = await fetchFn(last ? request : request.clone());
      } catch (err) {
        if (last || !replayable) throw err;
        await sleep(backoff(attempt));
        continue;
      }
      const retryable = response.status === 429 || (response.status >= 500 && replayable);
      if (!retryable || last) return response;
      const told = retryAfterMs(response.headers.get('retry-after'), Date.now());
      await response.body?.cancel();
      await sleep(told === null ? backoff(attempt) : Math.min(cap, told));
    }
  };
}
