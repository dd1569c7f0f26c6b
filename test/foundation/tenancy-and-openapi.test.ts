import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv, type TestAccount } from '../helpers/env.ts';

let env: TestEnv;
let owner: TestAccount;
let stranger: TestAccount;
let strangerKey: string;
let bid: string;

beforeAll(async () => {
  env = await createTestEnv();
  owner = await env.account();
  stranger = await env.account({ ocr: true });
  strangerKey = (await stranger.mint({ mode: 'test', scopes: ['businesses', 'documents', 'expenses', 'export', 'ocr'] })).secret;
  bid = (
    await env.business(owner.test, {
      branding: { logo: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' },
    })
  ).id;
});
afterAll(async () => env?.close());

const withIds = (url: string) => url.replace(':bid', bid).replace(/:(\w+)/g, (_m, name) => `${name}_doesnotmatter`);

describe('tenancy', () => {
  it('every route under a business answers 404 to another account’s key, whatever the body', async () => {
    const routes = env.app.routeList.filter((r) => r.url.includes(':bid') && r.url.startsWith('/v1/'));
    expect(routes.length).toBeGreaterThan(8);
    for (const r of routes) {
      const res = await env.call(r.method, withIds(r.url), { key: strangerKey, body: r.method === 'GET' || r.method === 'DELETE' ? undefined : {} });
      expect(res.status, `${r.method} ${r.url}`).toBe(404);
      expect(res.body?.reason, `${r.method} ${r.url}`).toBe('not_found');
    }
  });

  it('the owner’s own routes do not answer 404 for the business itself', async () => {
    const res = await env.call('GET', `/v1/businesses/${bid}`, { key: owner.test });
    expect(res.status).toBe(200);
    expect((await env.call('GET', `/v1/businesses/${bid}`, { key: strangerKey })).status).toBe(404);
    expect((await env.call('GET', `/v1/businesses/${bid}`, { key: owner.live })).status).toBe(404);
  });

  it('files of another account are not found', async () => {
    const fileId = (await env.call('GET', `/v1/businesses/${bid}`, { key: owner.test })).body.business.branding.logoRef.fileId;
    expect((await env.call('GET', `/v1/files/${fileId}`, { key: owner.test })).status).toBe(200);
    expect((await env.call('GET', `/v1/files/${fileId}`, { key: strangerKey })).status).toBe(404);
  });
});

describe('OpenAPI', () => {
  it('/v1/openapi.json covers every route, generated from the route schemas', async () => {
    const res = await env.call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\./);
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path}`);
    }
    const missing = env.app.routeList
      // The console is HTML for people, not part of the JSON API.
      .filter((r) => !r.hidden && !r.url.startsWith('/docs') && !r.url.startsWith('/console'))
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`)
      .filter((r) => !documented.has(r));
    expect(missing).toEqual([]);
    expect(doc.paths['/v1/businesses'].post.requestBody).toBeDefined();
    expect(doc.paths['/v1/businesses/{bid}/parties'].get.parameters.some((p: { name: string }) => p.name === 'kind')).toBe(true);
  });

  it('serves a rendered reference at /docs', async () => {
    const res = await env.call('GET', '/docs/');
    expect([200, 302]).toContain(res.status);
    const page = res.status === 302 ? await env.call('GET', String(res.headers.location)) : res;
    expect(page.raw.toString()).toContain('swagger');
  });
});
