import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/platform/config.ts';
import { MemoryRateLimiter } from '../../src/platform/rate-limit.ts';
import { divideHalfAwayFromZero, quantityTimesPrice, roundHalfAwayFromZero, scaledQuantity } from '../../src/platform/money.ts';
import { canonicalJson } from '../../src/platform/canonical-json.ts';
import { newId } from '../../src/platform/ids.ts';
import { israelDate } from '../../src/platform/clock.ts';
import { validationMessage } from '../../src/platform/http/error-handler.ts';
import { generateKeySecret, KEY_PATTERN, displayPrefix } from '../../src/accounts/keys.ts';
import { lastDays } from '../../src/accounts/usage.ts';

describe('config', () => {
  it('has defaults that work on a fresh machine', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.databaseUrl).toBeNull();
    expect(c.dataDir.endsWith('data')).toBe(true);
    expect(c.rateLimitPerMinute).toBe(60);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'postgres://x/y' }, 'SANDBOX_DATABASE_URL'],
    [{ SANDBOX_DATABASE_URL: 'postgres://x/y' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'mysql://x/y', SANDBOX_DATABASE_URL: 'postgres://x/z' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://x/y', SANDBOX_DATABASE_URL: 'postgres://x/y' }, 'SANDBOX_DATABASE_URL'],
    [{ RATE_LIMIT_PER_MINUTE: '0' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
  ])('%j is refused naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (err) {
      expect((err as ConfigError).variable).toBe(variable);
      expect((err as Error).message).toContain(variable);
    }
  });
});

describe('sliding-window rate limiter (in memory)', () => {
  it('allows `limit` requests in any 60 s window, not per fixed minute', () => {
    const rl = new MemoryRateLimiter(3);
    const t0 = 1_000_000;
    expect(rl.hitSync('k', t0).allowed).toBe(true);
    expect(rl.hitSync('k', t0 + 20_000).allowed).toBe(true);
    expect(rl.hitSync('k', t0 + 59_000).allowed).toBe(true);
    const refused = rl.hitSync('k', t0 + 59_500);
    expect(refused.allowed).toBe(false);
    // The oldest accepted request leaves the window at t0 + 60 s.
    expect(refused.retryAfterMs).toBe(500);
    expect(rl.hitSync('k', t0 + 60_000).allowed).toBe(true);
    // A fixed-minute bucket would now reset; the window still holds t0+20 s and t0+59 s and t0+60 s.
    expect(rl.hitSync('k', t0 + 61_000).allowed).toBe(false);
    expect(rl.hitSync('k', t0 + 80_000).allowed).toBe(true);
  });

  it('keeps keys apart and reports remaining', () => {
    const rl = new MemoryRateLimiter(2);
    expect(rl.hitSync('a', 0).remaining).toBe(1);
    expect(rl.hitSync('b', 0).remaining).toBe(1);
    expect(rl.hitSync('a', 1).remaining).toBe(0);
    expect(rl.hitSync('a', 2).allowed).toBe(false);
  });
});

describe('money', () => {
  it.each([
    [2.5, 3],
    [-2.5, -3],
    [2.4999, 2],
    [1.005 * 100, 101],
    [0.5, 1],
    [-0.5, -1],
    [0, 0],
    [123456789.5, 123456790],
  ])('round(%s) = %s', (x, r) => expect(roundHalfAwayFromZero(x)).toBe(r));

  it.each([
    [7n, 2n, 4n],
    [-7n, 2n, -4n],
    [5n, 2n, 3n],
    [-5n, 2n, -3n],
    [4n, 3n, 1n],
    [-4n, 3n, -1n],
    [0n, 7n, 0n],
  ])('%s / %s = %s, half away from zero', (n, d, q) => expect(divideHalfAwayFromZero(n, d)).toBe(q));

  // One rule for negatives: a quantity and a product round as their positive counterpart does, mirrored.
  it.each([
    [2.5, 4, 25_000],
    [-2.5, 4, -25_000],
    [0.00005, 4, 1],
    [-0.00005, 4, -1],
    [0.00004, 4, 0],
    [-0.00004, 4, 0],
    [1.005, 2, 101],
    [-1.005, 2, -101],
    [1e-7, 4, 0],
    [99_999_999_999.9999, 4, 999_999_999_999_999],
    [3, 2, 300],
  ])('scaledQuantity(%s, %s) = %s', (q, d, want) => {
    expect(scaledQuantity(q, d)).toBe(want);
    expect(Object.is(scaledQuantity(q, d), -0)).toBe(false);
  });

  it.each([
    [1, 10_000, 10_000],
    [2.5, 333, 833], // 832.5
    [-2.5, 333, -833],
    [2.5, -333, -833],
    [1.005, 100, 101], // 100.5, not 100.49999…
    [-1.005, 100, -101],
    [0.3335, 1000, 334],
    [0.1, 4, 0],
    [-0.1, 5, -1], // −0.5 → −1 (Math.round would give −0)
    [1.23456, 100, 123], // more decimals than OPENFRMT carries: still exact (123.456)
    [2, 13_704, 27_408], // 2 × 137.04 ₪ (the USD line of issue 29)
    [0, 5, 0],
  ])('quantityTimesPrice(%s, %s) = %s', (q, p, want) => {
    expect(quantityTimesPrice(q, p)).toBe(want);
    expect(Object.is(quantityTimesPrice(q, p), -0)).toBe(false);
  });

  it('refuses a price that is not whole minor units', () => expect(() => quantityTimesPrice(1, 1.5)).toThrow(/whole number/));
});

describe('small platform pieces', () => {
  it('canonical JSON sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 3 } })).toBe('{"a":{"c":3,"d":[{"y":2,"z":1}]},"b":1}');
  });

  it('canonical JSON is the sorted text of what JSON makes of the value: toJSON applied, undefined and functions as JSON treats them', () => {
    // The text audit rows were hashed over before: the value through JSON first, then its keys sorted.
    const sortedCopy = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sortedCopy)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, sortedCopy((v as Record<string, unknown>)[k])]),
            )
          : v;
    const viaJson = (v: unknown) => JSON.stringify(sortedCopy(JSON.parse(JSON.stringify(v))));
    const values: unknown[] = [
      { at: new Date('2026-11-27T08:00:00.123Z'), none: undefined, fn: () => 1, list: [undefined, () => 2, new Date(0), NaN, -0, Infinity] },
      { שם: 'דנה', name: 'Dana', '10': 'ten', '9': 'nine', nested: { z: [{ b: null, a: '"quoted"\n' }], a: 1e21, b: 0.1 + 0.2 } },
      [{ toJSON: () => ({ y: 2, x: 1 }) }, 'text', 12, true, null],
      { map: new Map([['a', 1]]), set: new Set([1]), emptyKey: { '': 1 }, emoji: '🧾' },
    ];
    for (const v of values) expect(canonicalJson(v)).toBe(viaJson(v));
  });

  it('ids are prefixed and sort by time', () => {
    const a = newId('doc', 1_700_000_000_000);
    const b = newId('doc', 1_700_000_000_001);
    expect(a).toMatch(/^doc_[0-9a-z]{26}$/);
    expect(a < b).toBe(true);
  });

  it('"today" is the Israel calendar day', () => {
    expect(israelDate(new Date('2026-03-01T21:59:00Z'))).toBe('2026-03-01');
    expect(israelDate(new Date('2026-03-01T22:00:00Z'))).toBe('2026-03-02');
    expect(israelDate(new Date('2026-07-01T21:00:00Z'))).toBe('2026-07-02');
  });

  it('keys carry ≥128 random bits and a short display prefix', () => {
    const k = generateKeySecret('live');
    expect(k).toMatch(KEY_PATTERN);
    expect(k.length - 'bk_live_'.length).toBe(32); // 32 × log2(62) ≈ 190 bits
    expect(displayPrefix(k)).toBe(k.slice(0, 12));
    expect(new Set(Array.from({ length: 200 }, () => generateKeySecret('test'))).size).toBe(200);
  });

  it('validation messages name the field path', () => {
    expect(validationMessage('body', [{ instancePath: '/lines/0', keyword: 'additionalProperties', params: { additionalProperty: 'qty' } }])).toBe(
      'body.lines[0].qty: unknown field',
    );
    expect(validationMessage('body', [{ instancePath: '', keyword: 'required', params: { missingProperty: 'name' } }])).toBe('body.name: is required');
    expect(validationMessage('querystring', [{ instancePath: '/days', keyword: 'maximum', message: 'must be <= 90' }])).toBe('querystring.days: must be <= 90');
  });

  it('usage days end today, oldest first', () => {
    expect(lastDays('2026-03-02', 3)).toEqual(['2026-02-28', '2026-03-01', '2026-03-02']);
  });
});
