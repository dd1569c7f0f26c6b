/**
 * The one shape of a retry schedule (pure): how many attempts in all and the wait before each retry. Webhook
 * deliveries list their waits (webhooks/schedule.ts); durable jobs grow theirs geometrically (catalog/jobs.ts).
 */

export interface RetrySchedule {
  /** Attempts in all, the first included: after failed attempt number `maxAttempts` there is no retry. */
  readonly maxAttempts: number;
  /** The wait before retry n (1-based) is `delaysMs[n − 1]`, ms; one fewer than the attempts. */
  readonly delaysMs: readonly number[];
}

/** Waits given one by one: one attempt more than there are waits. */
export function listedRetries(delaysMs: readonly number[]): RetrySchedule {
  return { maxAttempts: delaysMs.length + 1, delaysMs };
}

/** Geometric waits: retry n waits firstMs · factor^(n−1), capped at capMs. */
export interface GrowingWaits {
  maxAttempts: number;
  firstMs: number;
  factor: number;
  capMs: number;
}

export function growingRetries(g: GrowingWaits): RetrySchedule {
  const delaysMs = Array.from({ length: g.maxAttempts - 1 }, (_, i) => Math.min(g.firstMs * g.factor ** i, g.capMs));
  return { maxAttempts: g.maxAttempts, delaysMs };
}

/**
 * The wait before retry `retry` (1-based), ms. Past the schedule's last retry it answers the last wait (what a
 * test that keeps the clock moving after the attempts are spent advances by).
 */
export function retryDelayMs(schedule: RetrySchedule, retry: number): number {
  const { delaysMs } = schedule;
  return delaysMs[Math.min(Math.max(retry, 1), delaysMs.length) - 1] ?? 0;
}

/** When to try again after failed attempt number `attempt` (1-based), or null when the attempts are spent. */
export function nextAttemptAt(schedule: RetrySchedule, attempt: number, failedAt: Date): Date | null {
  if (attempt >= schedule.maxAttempts) return null;
  return new Date(failedAt.getTime() + retryDelayMs(schedule, attempt));
}
