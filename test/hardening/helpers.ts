import { expect } from 'vitest';
import type { CallResult } from '../helpers/env.ts';

/**
 * Every failure answer: a 4xx (never a 5xx), JSON `{error, reason, requestId}` and nothing else,
 * `requestId` the request's id as sent in X-Request-Id.
 */
export function expectErrorShape(r: CallResult, label = ''): void {
  expect(r.status, `${label} ${r.status} ${r.raw.toString().slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(r.status, `${label} ${r.raw.toString().slice(0, 300)}`).toBeLessThan(500);
  expect(String(r.headers['content-type']), label).toMatch(/^application\/json/);
  expect(Object.keys(r.body ?? {}).sort(), label).toEqual(['error', 'reason', 'requestId']);
  expect(typeof r.body.error, label).toBe('string');
  expect(r.body.error.length, label).toBeGreaterThan(0);
  expect(r.body.reason, label).toMatch(/^[a-z_]+$/);
  expect(r.body.requestId, label).toMatch(/^req_[0-9a-z]{26}$/);
  expect(r.headers['x-request-id'], label).toBe(r.body.requestId);
}

/** A failure with this status and reason whose message starts with the field path. */
export function expectRefused(r: CallResult, status: number, { reason, field, label = '' }: { reason: string; field?: string; label?: string }): void {
  expectErrorShape(r, label);
  expect(r.status, `${label} ${JSON.stringify(r.body)}`).toBe(status);
  expect(r.body.reason, label).toBe(reason);
  if (field !== undefined) expect(r.body.error.startsWith(`${field}: `), `${label}: ${r.body.error}`).toBe(true);
}

export const JSON_HEADERS = { 'content-type': 'application/json' };
