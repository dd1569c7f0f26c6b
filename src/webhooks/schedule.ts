/** The retry schedule and auto-disable rule of webhook deliveries (pure). */
import { listedRetries, nextAttemptAt as nextAttemptOf } from '../platform/retry-schedule.ts';

/** A delivery waits (`pending`), is `delivered`, or has `failed` once its attempts are spent. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Delay before retry n (1-based) after a failed attempt: 1 min, 5 min, 30 min, 2 h, 12 h, 24 h. */
export const RETRY_DELAYS_MS = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 12 * HOUR, 24 * HOUR] as const;

const DELIVERY_RETRIES = listedRetries(RETRY_DELAYS_MS);

/** Attempts in all: the first one plus one per retry delay; after the last failure the delivery is `failed`. */
export const MAX_ATTEMPTS = DELIVERY_RETRIES.maxAttempts;

/** Consecutive failed attempts (across deliveries) that disable an endpoint. */
export const DISABLE_AFTER_FAILURES = 20;

/** When to try again after failed attempt number `attempt` (1-based), or null when the delivery is now failed. */
export function nextAttemptAt(attempt: number, failedAt: Date): Date | null {
  return nextAttemptOf(DELIVERY_RETRIES, attempt, failedAt);
}

/** 2xx is delivered; everything else, redirects included, is a failure. */
export const isDelivered = (status: number | null): boolean => status !== null && status >= 200 && status < 300;
