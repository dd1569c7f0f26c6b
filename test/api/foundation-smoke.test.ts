import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

describe('smoke', () => {
  it('creates a business with a sandbox key', async () => {
    const a = await env.account();
    const b = await env.business(a.test);
    expect(b.id).toMatch(/^biz_/);
    const res = await env.call('GET', `/v1/businesses/${b.id}`, { key: a.test });
    expect(res.status).toBe(200);
    expect(res.headers['x-service-mode']).toBe('sandbox');
  });
});
