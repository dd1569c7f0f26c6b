import { describe, expect, it } from 'vitest';
import { checkSignUp, field, fieldList, maskPhone, normalizeCode, normalizeEmail, normalizePhone, safeConsolePath } from '../../src/console/forms.ts';

describe('normalizePhone', () => {
  it.each([
    ['050-123-4567', '+972501234567'],
    ['0501234567', '+972501234567'],
    ['+972 50 123 4567', '+972501234567'],
    ['00972501234567', '+972501234567'],
    ['(050) 123.4567', '+972501234567'],
    ['+1 415 555 2671', '+14155552671'],
    ['02-6251111', '+97226251111'],
  ])('%s → %s', (raw, e164) => expect(normalizePhone(raw)).toBe(e164));

  it.each(['', '123', 'abc', '+0501234567', '+12345678901234567', '05012', '050-123-456a', '++972501234567'])('refuses %j', (raw) =>
    expect(normalizePhone(raw)).toBeNull(),
  );
});

describe('normalizeEmail', () => {
  it('lower-cases and trims', () => expect(normalizeEmail('  Dev@Example.COM ')).toBe('dev@example.com'));
  it.each(['', 'a', 'a@b', 'a@@b.com', 'a b@c.com', '<a@b.com>', `${'x'.repeat(250)}@b.com`])('refuses %j', (raw) => expect(normalizeEmail(raw)).toBeNull());
});

describe('checkSignUp', () => {
  const good = { name: ' Acme ', email: 'dev@acme.co.il', phone: '052-765-4321', password: 'long enough password' };
  it('answers the normalized values', () => {
    expect(checkSignUp(good)).toEqual({ ok: true, value: { name: 'Acme', email: 'dev@acme.co.il', phone: '+972527654321', password: 'long enough password' } });
  });
  it('names every bad field', () => {
    const r = checkSignUp({ name: '', email: 'x', phone: '1', password: 'short' });
    expect(r).toEqual({ ok: false, errors: { name: 'err_required', email: 'err_email', phone: 'err_phone', password: 'err_password_short' } });
  });
  it('refuses an overlong name and password, and a password built on the email', () => {
    expect(checkSignUp({ ...good, name: 'n'.repeat(201) })).toMatchObject({ ok: false, errors: { name: 'err_name_long' } });
    expect(checkSignUp({ ...good, password: 'p'.repeat(201) })).toMatchObject({ ok: false, errors: { password: 'err_password_long' } });
    expect(checkSignUp({ ...good, email: 'shalom@x.com', password: 'Shalom123456' })).toMatchObject({ ok: false, errors: { password: 'err_password_email' } });
  });
  it('treats missing and repeated fields safely', () => {
    expect(checkSignUp(undefined)).toMatchObject({ ok: false });
    expect(field({ a: ['1', '2'] }, 'a')).toBe('1');
    expect(field({ a: 5 }, 'a')).toBe('');
    expect(fieldList({ s: 'x' }, 's')).toEqual(['x']);
    expect(fieldList({ s: ['x', 'y'] }, 's')).toEqual(['x', 'y']);
    expect(fieldList({}, 's')).toEqual([]);
  });
});

describe('small helpers', () => {
  it('normalizeCode', () => {
    expect(normalizeCode(' 123 456 ')).toBe('123456');
    expect(normalizeCode('123-456')).toBe('123456');
    expect(normalizeCode('12345')).toBeNull();
    expect(normalizeCode('1234567')).toBeNull();
    expect(normalizeCode('12a456')).toBeNull();
  });
  it('safeConsolePath keeps redirects inside the console', () => {
    expect(safeConsolePath('/console/keys')).toBe('/console/keys');
    expect(safeConsolePath('/console/usage?mode=sandbox&days=7')).toBe('/console/usage?mode=sandbox&days=7');
    for (const bad of ['https://evil.example', '//evil.example', '/console//evil.example', '/consolex', '/v1/keys', '/console/../v1', undefined]) {
      expect(safeConsolePath(bad)).toBe('/console');
    }
  });
  it('maskPhone shows only the country prefix and the last two digits', () => {
    expect(maskPhone('+972501234567')).toBe('+972 ••• ••• 67');
    expect(maskPhone(null)).toBe('');
  });
});
