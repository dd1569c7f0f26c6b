import { describe, expect, it } from 'vitest';
import { growingRetries, listedRetries, nextAttemptAt, retryDelayMs } from '../../src/platform/retry-schedule.ts';
import { JOBS } from '../../src/platform/catalog/jobs.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/webhooks/schedule.ts';

const S = 1_000;
const MIN = 60 * S;
const at = new Date('2026-03-01T00:00:00.000Z');

describe('retry schedules', () => {
  it('a listed schedule has one attempt more than waits and answers each wait in turn', () => {
    const s = listedRetries([5, 50, 500]);
    expect(s.maxAttempts).toBe(4);
    expect([1, 2, 3].map((n) => retryDelayMs(s, n))).toEqual([5, 50, 500]);
    expect([1, 2, 3].map((n) => nextAttemptAt(s, n, at)?.getTime())).toEqual([at.getTime() + 5, at.getTime() + 50, at.getTime() + 500]);
    expect(nextAttemptAt(s, 4, at)).toBeNull();
    expect(nextAttemptAt(s, 9, at)).toBeNull();
  });

  it('past the last retry a delay is the last wait; before the first, the first', () => {
    const s = listedRetries([5, 50, 500]);
    expect(retryDelayMs(s, 4)).toBe(500);
    expect(retryDelayMs(s, 40)).toBe(500);
    expect(retryDelayMs(s, 0)).toBe(5);
  });

  it('a single attempt never retries', () => {
    const s = listedRetries([]);
    expect(s.maxAttempts).toBe(1);
    expect(nextAttemptAt(s, 1, at)).toBeNull();
    expect(growingRetries({ maxAttempts: 1, firstMs: 10, factor: 2, capMs: 100 }).delaysMs).toEqual([]);
  });

  it('a growing schedule multiplies from the first wait and stops at the cap', () => {
    expect(growingRetries({ maxAttempts: 6, firstMs: 10, factor: 3, capMs: 500 })).toEqual({ maxAttempts: 6, delaysMs: [10, 30, 90, 270, 500] });
    expect(growingRetries({ maxAttempts: 4, firstMs: 7, factor: 1, capMs: 7 }).delaysMs).toEqual([7, 7, 7]);
    expect(growingRetries({ maxAttempts: 3, firstMs: 100, factor: 2, capMs: 50 }).delaysMs).toEqual([50, 50]);
  });

  it('keeps the webhook deliveries’ waits: 1 min, 5 min, 30 min, 2 h, 12 h, 24 h, 7 attempts', () => {
    expect(RETRY_DELAYS_MS).toEqual([MIN, 5 * MIN, 30 * MIN, 120 * MIN, 720 * MIN, 1440 * MIN]);
    expect(MAX_ATTEMPTS).toBe(7);
  });

  it('keeps each job’s waits exactly', () => {
    const render = [2, 4, 8, 16, 32, 64, 128, 256, 512].map((s) => s * S).concat(Array<number>(10).fill(600 * S));
    expect(JOBS['document.render'].retry).toEqual({ maxAttempts: 20, delaysMs: render });
    const slow = [10, 30, 90, 270, 810, 2430].map((s) => s * S).concat(Array<number>(3).fill(3600 * S));
    expect(JOBS['document.allocation'].retry).toEqual({ maxAttempts: 10, delaysMs: slow });
    expect(JOBS['document.donation_report'].retry).toEqual({ maxAttempts: 10, delaysMs: slow });
  });
});
