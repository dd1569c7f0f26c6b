import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { signWebhook, verifyWebhook } from '../../src/webhooks/signature.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, isDelivered, nextAttemptAt } from '../../src/webhooks/schedule.ts';

const secret = 'whsec_test_secret';
const body = Buffer.from('{"id":"del_1","event":"webhook.test","data":{"x":"שלום"}}');
const t = 1_772_352_000;
const now = new Date(t * 1000);

describe('signWebhook / verifyWebhook', () => {
  it('signs HMAC-SHA256 of "<t>.<raw body>" in hex', () => {
    const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
    expect(signWebhook(secret, body, t)).toBe(`t=${t},v1=${expected}`);
    expect(signWebhook(secret, body.toString('utf8'), t)).toBe(`t=${t},v1=${expected}`);
  });

  it('accepts a good signature (Buffer or string body)', () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhook(secret, body, header, { now })).toEqual({ ok: true, timestamp: t });
    expect(verifyWebhook(secret, body.toString('utf8'), header, { now: now.getTime() }).ok).toBe(true);
    expect(verifyWebhook(secret, body, [header], { now }).ok).toBe(true);
  });

  it('refuses a changed body, another secret, a changed timestamp', () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhook(secret, Buffer.from(body.toString().replace('test', 'tesT')), header, { now })).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verifyWebhook('whsec_other', body, header, { now }).ok).toBe(false);
    expect(verifyWebhook(secret, body, header.replace(`t=${t}`, `t=${t + 1}`), { now })).toEqual({ ok: false, reason: 'signature_mismatch' });
    // A re-serialized body (same JSON, other bytes) does not match.
    expect(verifyWebhook(secret, JSON.stringify(JSON.parse(body.toString()), null, 2), header, { now }).ok).toBe(false);
  });

  it('refuses timestamps outside the tolerance, both directions', () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhook(secret, body, header, { now: new Date((t + 300) * 1000) }).ok).toBe(true);
    expect(verifyWebhook(secret, body, header, { now: new Date((t + 301) * 1000) })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verifyWebhook(secret, body, header, { now: new Date((t - 301) * 1000) })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verifyWebhook(secret, body, header, { now: new Date((t + 1000) * 1000), toleranceSec: 1000 }).ok).toBe(true);
  });

  it('refuses missing and malformed headers', () => {
    expect(verifyWebhook(secret, body, undefined, { now })).toEqual({ ok: false, reason: 'missing_header' });
    expect(verifyWebhook(secret, body, '', { now })).toEqual({ ok: false, reason: 'missing_header' });
    expect(verifyWebhook(secret, body, 'v1=abc', { now })).toEqual({ ok: false, reason: 'malformed_header' });
    expect(verifyWebhook(secret, body, `t=${t}`, { now })).toEqual({ ok: false, reason: 'malformed_header' });
    expect(verifyWebhook(secret, body, `t=abc,v1=00`, { now })).toEqual({ ok: false, reason: 'malformed_header' });
    expect(verifyWebhook(secret, body, `t=${t},v1=short`, { now })).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('accepts when any of several v1 values matches', () => {
    const good = signWebhook(secret, body, t).split(',')[1];
    expect(verifyWebhook(secret, body, `t=${t},v1=${'0'.repeat(64)},${good}`, { now }).ok).toBe(true);
  });
});

describe('retry schedule', () => {
  it('is 1 min, 5 min, 30 min, 2 h, 12 h, 24 h, then failed', () => {
    const at = new Date('2026-03-01T00:00:00.000Z');
    expect(RETRY_DELAYS_MS).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 43_200_000, 86_400_000]);
    expect(MAX_ATTEMPTS).toBe(7);
    expect(nextAttemptAt(1, at)?.toISOString()).toBe('2026-03-01T00:01:00.000Z');
    expect(nextAttemptAt(2, at)?.toISOString()).toBe('2026-03-01T00:05:00.000Z');
    expect(nextAttemptAt(3, at)?.toISOString()).toBe('2026-03-01T00:30:00.000Z');
    expect(nextAttemptAt(4, at)?.toISOString()).toBe('2026-03-01T02:00:00.000Z');
    expect(nextAttemptAt(5, at)?.toISOString()).toBe('2026-03-01T12:00:00.000Z');
    expect(nextAttemptAt(6, at)?.toISOString()).toBe('2026-03-02T00:00:00.000Z');
    expect(nextAttemptAt(7, at)).toBeNull();
  });

  it('only 2xx is delivered', () => {
    expect([200, 201, 204, 299].every(isDelivered)).toBe(true);
    expect([null, 100, 199, 300, 301, 302, 304, 400, 404, 500, 503].some((s) => isDelivered(s))).toBe(false);
  });
});
