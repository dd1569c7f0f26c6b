/**
 * Pure validation of the console's forms. Problems are message keys (see i18n.ts) so the page
 * shows them in the visitor's language next to the field.
 */
import type { MessageKey } from './i18n.ts';

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

export interface SignUpValues {
  name: string;
  email: string;
  phone: string;
  password: string;
}

export type SignUpField = keyof SignUpValues;
export type FieldErrors<F extends string> = Partial<Record<F, MessageKey>>;

export type Checked<T, F extends string> = { ok: true; value: T } | { ok: false; errors: FieldErrors<F> };

/** The mint form's one-time idempotency token (hidden field); a script may send `Idempotency-Key` instead. */
export const MINT_TOKEN_FIELD = 'idempotency_key';

/** A form field as @fastify/formbody gives it: a string, an array when repeated, or absent. */
export function field(body: unknown, name: string): string {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0] : '';
  return typeof v === 'string' ? v : '';
}

/** Every value of a repeated field (checkboxes). */
export function fieldList(body: unknown, name: string): string[] {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return typeof v === 'string' ? [v] : [];
}

/** Lower-cased, trimmed; null when it does not look like an address (the SMTP-level check is the operator's). */
export function normalizeEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  if (email.length > 254) return null;
  return /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[a-z0-9-]{2,}$/.test(email) ? email : null;
}

/**
 * An SMS-capable number in E.164 (`+972501234567`). Israeli local forms (`050-123-4567`) get the
 * +972 prefix; `00` international prefixes become `+`. Null when it cannot be a phone number.
 */
export function normalizePhone(raw: string): string | null {
  const compact = raw.trim().replace(/[\s\-().]/g, '');
  let digits: string;
  if (/^\+\d+$/.test(compact)) digits = compact.slice(1);
  else if (/^00\d+$/.test(compact)) digits = compact.slice(2);
  else if (/^0\d{8,9}$/.test(compact)) digits = `972${compact.slice(1)}`;
  else return null;
  if (digits.startsWith('0') || digits.length < 8 || digits.length > 15) return null;
  return `+${digits}`;
}

export function checkSignUp(body: unknown): Checked<SignUpValues, SignUpField> {
  const errors: FieldErrors<SignUpField> = {};
  const name = field(body, 'name').trim();
  if (!name) errors.name = 'err_required';
  else if (name.length > 200) errors.name = 'err_name_long';
  const email = normalizeEmail(field(body, 'email'));
  if (!email) errors.email = 'err_email';
  const phone = normalizePhone(field(body, 'phone'));
  if (!phone) errors.phone = 'err_phone';
  const password = field(body, 'password');
  if (password.length < PASSWORD_MIN) errors.password = 'err_password_short';
  else if (password.length > PASSWORD_MAX) errors.password = 'err_password_long';
  else if (email && password.toLowerCase().includes(email.split('@')[0]) && email.split('@')[0].length >= 4) {
    errors.password = 'err_password_email';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: { name, email: email!, phone: phone!, password } };
}

/** The six digits of a code as typed (spaces and dashes tolerated); null when not six digits. */
export function normalizeCode(raw: string): string | null {
  const code = raw.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(code) ? code : null;
}

/** Only paths inside the console may be a redirect target (no open redirect). */
export function safeConsolePath(raw: string | undefined): string {
  if (!raw || !/^\/console(\/[A-Za-z0-9/_\-?=&.]*)?$/.test(raw) || raw.includes('//') || raw.includes('..')) return '/console';
  return raw;
}

/** Masks a phone for display: `+972 ••• ••• 67`. */
export function maskPhone(phone: string | null): string {
  if (!phone) return '';
  return `${phone.slice(0, 4)} ••• ••• ${phone.slice(-2)}`;
}
