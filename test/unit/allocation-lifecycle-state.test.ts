import { describe, expect, it } from 'vitest';
import {
  awaitingAllocation,
  failed,
  granted,
  refused,
  stillPending,
  warningsAfterFailure,
  warningsAfterGrant,
  warningsAfterRefusal,
} from '../../src/allocation/lifecycle-state.ts';
import { connectionState, modeOfState, newState, type Connection } from '../../src/allocation/connections.ts';
import type { AllocationState } from '../../src/documents/snapshot-types.ts';

const at = new Date('2026-03-01T09:00:00.000Z');
const pending: AllocationState = { status: 'pending', number: null, error: null, requestedAt: '2026-03-01T08:00:00.000Z', decidedAt: null };
const other = { code: 'no_digital_consent', message: 'x' };
const missing = { code: 'allocation_missing', message: 'y' };

describe('allocation transitions', () => {
  it('pending → granted keeps requestedAt and sets decidedAt', () => {
    expect(granted(pending, '123456789', at)).toEqual({
      status: 'granted',
      number: '123456789',
      error: null,
      requestedAt: pending.requestedAt,
      decidedAt: at.toISOString(),
    });
  });
  it('pending without requestedAt (as issue leaves it) takes the decision time', () => {
    expect(granted({ ...pending, requestedAt: null }, '1', at).requestedAt).toBe(at.toISOString());
  });
  it('refused and failed carry the error; still pending shows the transient problem', () => {
    expect(refused(pending, '432', 'Customer VAT Number is incorrect', at)).toMatchObject({
      status: 'refused',
      number: null,
      error: '432: Customer VAT Number is incorrect',
    });
    expect(failed(pending, '10 attempts: timeout', at)).toMatchObject({ status: 'failed', error: '10 attempts: timeout', decidedAt: at.toISOString() });
    expect(stillPending({ ...pending, requestedAt: null }, 'attempt 1: http_500', at)).toEqual({
      status: 'pending',
      number: null,
      error: 'attempt 1: http_500',
      requestedAt: at.toISOString(),
      decidedAt: null,
    });
  });
  it('warnings: the allocation warning is replaced, others stay', () => {
    expect(warningsAfterGrant([other, missing])).toEqual([other]);
    expect(warningsAfterRefusal([missing, other], '434', 'old').map((w) => w.code)).toEqual(['no_digital_consent', 'allocation_refused']);
    expect(warningsAfterFailure([missing], 'timeout').map((w) => w.code)).toEqual(['allocation_failed']);
    expect(warningsAfterFailure(warningsAfterRefusal([missing], '1', 'x'), 'e').map((w) => w.code)).toEqual(['allocation_failed']);
  });
  it('only pending means "wait for the answer"', () => {
    expect(awaitingAllocation(pending)).toBe(true);
    for (const status of ['not_required', 'granted', 'refused', 'failed'] as const) expect(awaitingAllocation({ ...pending, status })).toBe(false);
    expect(awaitingAllocation(null)).toBe(false);
  });
});

describe('connection state', () => {
  const now = new Date('2026-03-10T00:00:00.000Z');
  const day = 86_400_000;
  const c = (refreshExpiresInMs: number, broken = false): Connection => ({
    businessId: 'b',
    provider: 'ita',
    accessToken: 'a',
    accessExpiresAt: now.toISOString(),
    refreshToken: 'r',
    refreshExpiresAt: new Date(now.getTime() + refreshExpiresInMs).toISOString(),
    scope: null,
    consentedOn: null,
    brokenAt: broken ? now.toISOString() : null,
    brokenReason: null,
    connectedAt: now.toISOString(),
    refreshedAt: null,
    expiryWarnedFor: null,
  });
  it.each([
    [null, 'not_connected'],
    [c(10 * day), 'connected'],
    [c(3 * day + 1), 'connected'],
    [c(3 * day), 'expiring'],
    [c(1), 'expiring'],
    [c(0), 'expired'],
    [c(10 * day, true), 'expired'],
  ])('%#: %s', (conn, state) => expect(connectionState(conn, now, 3 * day)).toBe(state));
  it('the consent state names its database', () => {
    expect(modeOfState(newState('live'))).toBe('live');
    expect(modeOfState(newState('sandbox'))).toBe('sandbox');
    expect(modeOfState('x_abc')).toBeNull();
    expect(newState('live')).not.toBe(newState('live'));
  });
});
