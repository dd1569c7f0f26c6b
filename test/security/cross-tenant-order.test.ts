/**
 * Issue 16 item 3: authentication, then scope, then ownership, then configuration and the rest.
 * For every path of the OpenAPI document with a {bid} or {id}, tenant B's key on tenant A's
 * business or object answers 404 `not_found` (403 `forbidden` only for a scope the key lacks, the
 * same as for an id that exists nowhere), never a 503/409/422/400 that would tell the object exists.
 * Optional services are unconfigured: no SMTP, no OCR, no OPENFRMT_MAKER_TAX_ID, and (after the
 * fixtures are made) `env: production`, so no allocation simulator either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { setWebhookResolver } from '../../src/webhooks/runtime.ts';

const ALL_SCOPES = ['businesses', 'documents', 'expenses', 'export', 'ocr'];
const line = { description: 'ייעוץ', quantity: 1, unitPriceExVat: 10_000 };
/** Bodies that pass validation, so that what answers is the ownership check, not the schema. */
const BODIES: Record<string, unknown> = {
  'POST /v1/businesses/{bid}/documents/{id}/email': { to: ['x@customer.example'] },
  'POST /v1/businesses/{bid}/documents/{id}/credit-note': {},
  'POST /v1/businesses/{bid}/documents/{id}/convert': { docType: 305 },
  'POST /v1/businesses/{bid}/exports/openfrmt': { from: '2026-01-01', to: '2026-02-28' },
  'POST /v1/businesses/{bid}/ledger/entries/{id}/reverse': { date: '2026-02-02' },
  'POST /v1/businesses/{bid}/expenses/scan': { file: `data:image/png;base64,${'iVBORw0KGgo='}` },
  'POST /v1/businesses/{bid}/expenses/upload': { file: `data:image/png;base64,${'iVBORw0KGgo='}` },
};

type Mode = 'live' | 'test';
interface Fixtures {
  bid: string;
  ids: Record<string, string[]>;
}

let env: TestEnv;
let paths: { method: string; path: string }[];
const keyB: Record<Mode, string> = { live: '', test: '' };
const narrowB: Record<Mode, string> = { live: '', test: '' };
const bidB: Record<Mode, string> = { live: '', test: '' };
const fixturesA: Record<Mode, Fixtures> = {} as never;

async function fixtures(key: string): Promise<Fixtures> {
  const logo = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
  const business = await env.business(key, { branding: { logo } });
  const bid = business.id as string;
  const post = async (url: string, body: unknown) => {
    const r = await env.call('POST', url, { key, body });
    expect(r.status, `${url} ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return r.body;
  };
  const draft = (await post(`/v1/businesses/${bid}/documents`, { docType: 305, lines: [line] })).document.id;
  const issued = (await post(`/v1/businesses/${bid}/documents`, { docType: 305, lines: [line] })).document.id;
  await post(`/v1/businesses/${bid}/documents/${issued}/issue`, {});
  const party = (await post(`/v1/businesses/${bid}/parties`, { kind: 'customer', name: 'לקוח' })).party.id;
  const expense = (await post(`/v1/businesses/${bid}/expenses`, {})).expense.id;
  const webhook = (await post('/v1/webhooks', { url: 'https://hooks.example.com/pinkas' })).webhook.id;
  const exports = env.s.config.exports as { makerTaxId: string };
  exports.makerTaxId = '516179157';
  const exportRun = (await post(`/v1/businesses/${bid}/exports/openfrmt`, { from: '2026-01-01', to: '2026-02-28' })).exportRun.id;
  exports.makerTaxId = '';
  const file = business.branding.logoRef.fileId as string;
  const entry = (
    await post(`/v1/businesses/${bid}/ledger/entries`, {
      date: '2026-02-01',
      description: 'x',
      lines: [
        { account: '6000', debit: 100 },
        { account: '1200', credit: 100 },
      ],
    })
  ).entry.id;
  const supplier = (await post(`/v1/businesses/${bid}/parties`, { kind: 'supplier', name: 'ספק', taxId: '516179157' })).party.id;
  const payment = (await post(`/v1/businesses/${bid}/supplier-payments`, { partyId: supplier, method: 'cash', amount: 100, date: '2026-02-01' })).payment.id;
  const event = (await env.call('GET', `/v1/events?businessId=${bid}&take=1`, { key })).body.events[0].id as string;
  return {
    bid,
    ids: {
      events: [event],
      documents: [draft, issued],
      parties: [party],
      expenses: [expense],
      webhooks: [webhook],
      exports: [exportRun],
      files: [file],
      entries: [entry],
      'supplier-payments': [payment],
    },
  };
}

beforeAll(async () => {
  env = await createTestEnv();
  setWebhookResolver(env.s, async () => ['93.184.216.34']);
  const a = await env.account({ ocr: true });
  const b = await env.account({ ocr: true });
  for (const mode of ['live', 'test'] as const) {
    fixturesA[mode] = await fixtures((await a.mint({ mode, scopes: ALL_SCOPES })).secret);
    keyB[mode] = (await b.mint({ mode, scopes: ALL_SCOPES })).secret;
    narrowB[mode] = (await b.mint({ mode, scopes: ['businesses'] })).secret;
    bidB[mode] = (await env.business(keyB[mode])).id;
  }
  // Every optional service unconfigured from here on (the fixtures above needed some of them).
  (env.s.config as { env: string }).env = 'production';
  const doc = (await env.call('GET', '/v1/openapi.json')).body;
  paths = Object.entries<Record<string, unknown>>(doc.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path })))
    .filter((p) => p.path.startsWith('/v1/') && /\{(bid|id)\}/.test(p.path));
});
afterAll(async () => env?.close());

/** The collection an {id} belongs to: the path segment before it. */
const collectionOf = (path: string) => /\/([a-z-]+)\/\{id\}/.exec(path)?.[1] ?? '';
const bodyOf = (method: string, path: string) => (method === 'GET' || method === 'DELETE' ? undefined : (BODIES[`${method} ${path}`] ?? {}));

function urls(path: string, bid: string, ids: Record<string, string[]>): string[] {
  const withBid = path.replace('{bid}', bid);
  if (!path.includes('{id}')) return [withBid];
  const found = ids[collectionOf(path)];
  if (!found) throw new Error(`no fixture for the {id} of ${path}: add one`);
  return found.map((id) => withBid.replace('{id}', id));
}

async function expectNotFound(mode: Mode, method: string, path: string, url: string) {
  const res = await env.call(method, url, { key: keyB[mode], body: bodyOf(method, path) });
  expect({ status: res.status, reason: res.body?.reason }, `${mode} ${method} ${url}: ${JSON.stringify(res.body)}`).toEqual({
    status: 404,
    reason: 'not_found',
  });
}

describe.each(['live', 'test'] as const)('cross-tenant order (%s keys)', (mode) => {
  it('the OpenAPI document lists the routes under test', () => {
    expect(paths.filter((p) => p.path.includes('{bid}')).length).toBeGreaterThan(30);
    expect(paths.filter((p) => p.path.includes('{id}')).length).toBeGreaterThan(15);
  });

  it("B's key on A's business (and A's objects in it): 404 not_found on every route", async () => {
    for (const { method, path } of paths) {
      for (const url of urls(path, fixturesA[mode].bid, fixturesA[mode].ids)) await expectNotFound(mode, method, path, url);
    }
  });

  it("B's key on B's own business with A's object ids: 404 not_found before any configuration or state check", async () => {
    for (const { method, path } of paths.filter((p) => p.path.includes('{id}'))) {
      for (const url of urls(path, bidB[mode], fixturesA[mode].ids)) await expectNotFound(mode, method, path, url);
    }
  });

  it('a key lacking the scope: 403 forbidden or 404, the same answer as for an id that exists nowhere', async () => {
    const nowhere = {
      bid: 'biz_01kjm6jm00t4x3hw9x7bv89g01',
      ids: Object.fromEntries(Object.keys(fixturesA[mode].ids).map((k) => [k, ['zz_01kjm6jm00wkavcnhxa7gyg9t4']])),
    };
    for (const { method, path } of paths) {
      const real = urls(path, fixturesA[mode].bid, fixturesA[mode].ids)[0];
      const fake = urls(path, nowhere.bid, nowhere.ids)[0];
      const r1 = await env.call(method, real, { key: narrowB[mode], body: bodyOf(method, path) });
      const r2 = await env.call(method, fake, { key: narrowB[mode], body: bodyOf(method, path) });
      expect([403, 404], `${method} ${real}`).toContain(r1.status);
      expect({ status: r1.status, reason: r1.body?.reason }, `${method} ${path}`).toEqual({ status: r2.status, reason: r2.body?.reason });
    }
  });
});
