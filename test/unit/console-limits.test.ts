import { describe, expect, it } from 'vitest';
import {
  CODE_MAX_ATTEMPTS,
  judgeCode,
  judgeResend,
  lockedUntil,
  MAX_CODES_PER_SIGN_IN,
  RESEND_AFTER_MS,
  SESSION_IDLE_MS,
  sessionAlive,
} from '../../src/console/limits.ts';

const MIN = 60_000;

describe('lockedUntil', () => {
  it('is open below the threshold', () => {
    expect(lockedUntil([1, 2, 3, 4], 10 * MIN, 5)).toBeNull();
    expect(lockedUntil([], 0, 1)).toBeNull();
  });
  it('locks at the threshold, until the window passes the max-th most recent failure', () => {
    const now = 100 * MIN;
    const failures = [90, 91, 92, 93, 94].map((m) => m * MIN);
    expect(lockedUntil(failures, now, 5, 15 * MIN)).toBe(90 * MIN + 15 * MIN);
    // Order does not matter; older failures outside the window do not count.
    expect(lockedUntil([...failures].reverse().concat([10 * MIN]), now, 5, 15 * MIN)).toBe(105 * MIN);
    expect(
      lockedUntil(
        [84, 91, 92, 93, 94].map((m) => m * MIN),
        now,
        5,
        15 * MIN,
      ),
    ).toBeNull();
  });
  it('with more failures than the threshold, opens when fewer than max remain in the window', () => {
    const failures = [90, 91, 92, 93, 94, 95].map((m) => m * MIN);
    expect(lockedUntil(failures, 100 * MIN, 5, 15 * MIN)).toBe(91 * MIN + 15 * MIN);
  });
  it('ignores failures recorded in the future (clock skew between processes)', () => {
    expect(lockedUntil([200 * MIN, 201 * MIN], 100 * MIN, 2)).toBeNull();
  });
});

describe('judgeCode', () => {
  const code = { createdAtMs: 0, expiresAtMs: 5 * MIN, attempts: 0, consumed: false, superseded: false };
  it('accepts a matching live code', () => expect(judgeCode(code, MIN, true)).toBe('accept'));
  it('calls a non-matching code wrong', () => expect(judgeCode(code, MIN, false)).toBe('wrong'));
  it('expires at exactly 5 minutes', () => {
    expect(judgeCode(code, 5 * MIN - 1, true)).toBe('accept');
    expect(judgeCode(code, 5 * MIN, true)).toBe('expired');
  });
  it('is exhausted after the attempt limit, even for the right code', () => {
    expect(judgeCode({ ...code, attempts: CODE_MAX_ATTEMPTS - 1 }, MIN, true)).toBe('accept');
    expect(judgeCode({ ...code, attempts: CODE_MAX_ATTEMPTS }, MIN, true)).toBe('exhausted');
  });
  it('never accepts a used, replaced or missing code', () => {
    expect(judgeCode({ ...code, consumed: true }, MIN, true)).toBe('none');
    expect(judgeCode({ ...code, superseded: true }, MIN, true)).toBe('none');
    expect(judgeCode(null, MIN, true)).toBe('none');
  });
});

describe('judgeResend', () => {
  it('waits 60 s after the last code', () => {
    expect(judgeResend([0], RESEND_AFTER_MS - 1000)).toEqual({ ok: false, why: 'too_soon', retryAfterMs: 1000 });
    expect(judgeResend([0], RESEND_AFTER_MS)).toEqual({ ok: true });
    expect(judgeResend([5 * MIN, 0], 5 * MIN + 10_000)).toMatchObject({ why: 'too_soon', retryAfterMs: 50_000 });
  });
  it('stops after the per-sign-in maximum', () => {
    const sent = Array.from({ length: MAX_CODES_PER_SIGN_IN }, (_, i) => i * 2 * MIN);
    expect(judgeResend(sent, 100 * MIN)).toEqual({ ok: false, why: 'too_many' });
    expect(judgeResend(sent.slice(1), 100 * MIN)).toEqual({ ok: true });
  });
  it('allows the first code', () => expect(judgeResend([], 0)).toEqual({ ok: true }));
});

describe('sessionAlive', () => {
  const s = { createdAtMs: 0, expiresAtMs: 12 * 60 * MIN, lastSeenAtMs: 0, secondFactor: true, ended: false };
  it('lives until idle for an hour', () => {
    expect(sessionAlive(s, SESSION_IDLE_MS - 1)).toBe(true);
    expect(sessionAlive(s, SESSION_IDLE_MS)).toBe(false);
    expect(sessionAlive({ ...s, lastSeenAtMs: 11 * 60 * MIN }, 11.5 * 60 * MIN)).toBe(true);
  });
  it('ends at its absolute expiry or when signed out', () => {
    expect(sessionAlive({ ...s, lastSeenAtMs: 12 * 60 * MIN - 1 }, 12 * 60 * MIN)).toBe(false);
    expect(sessionAlive({ ...s, ended: true }, 1)).toBe(false);
  });
  it('a session waiting for its code is bounded by its own short expiry only', () => {
    expect(sessionAlive({ ...s, secondFactor: false, expiresAtMs: 10 * MIN }, 9 * MIN)).toBe(true);
    expect(sessionAlive({ ...s, secondFactor: false, expiresAtMs: 10 * MIN }, 10 * MIN)).toBe(false);
  });
});
