import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type CallResult, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { expectErrorShape, expectRefused, JSON_HEADERS } from './helpers.ts';

// Issue 16: walks the app's own OpenAPI document. For every operation with a JSON body, every
// string field (at any depth, in every branch of a union, in array items) gets a NUL and an
// unpaired surrogate, and every number field 1e309; every query and path parameter gets a NUL.
// Each must answer 400 `validation` naming that field, in the one error shape: never a 5xx.
// Deterministic (no randomness) and bounded (one request per field and variant).

type Schema = Record<string, any>;

// Thousands of requests one after another: ~20 s a test on a quiet machine, several times that on a loaded one.
const WALK = { timeout: 300_000 };
interface Operation {
  method: string;
  path: string;
  op: Schema;
}

let env: TestEnv;
let key: string;
let bid: string;
let doc: Schema;
let a: TestAccount;
const ALL_SCOPES = ['businesses', 'documents', 'expenses', 'export', 'ocr'];
beforeAll(async () => {
  // Private webhook targets: the walk's fixture webhook points at a loopback address (never delivered to).
  env = await createTestEnv({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  // Every scope (ocr too), so that no route answers 403 before it reads its input.
  a = await env.account({ ocr: true });
  key = (await a.mint({ mode: 'test', scopes: ALL_SCOPES })).secret;
  bid = (await env.business(key)).id;
  const r = await env.call('GET', '/v1/openapi.json', { key });
  expect(r.status).toBe(200);
  doc = r.body;
});
afterAll(async () => env?.close());

function resolve(s: Schema): Schema {
  let out = s;
  for (let i = 0; out?.$ref && i < 10; i++) out = doc.components.schemas[String(out.$ref).split('/').pop()!];
  return out ?? {};
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) out.push({ method: method.toUpperCase(), path, op });
    }
  }
  return out;
}

const fillPath = (path: string, override: Record<string, string> = {}) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => override[name] ?? (name === 'bid' ? bid : 'x_nope'));

/** A minimal value of a schema: required fields only, the first non-null branch of a union. */
function sample(s0: Schema): unknown {
  const s = resolve(s0);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const branches = s.anyOf ?? s.oneOf;
  if (branches) return sample(branches.find((b: Schema) => resolve(b).type !== 'null') ?? branches[0]);
  switch ([s.type].flat()[0]) {
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const k of s.required ?? []) o[k] = sample(s.properties?.[k] ?? {});
      return o;
    }
    case 'array':
      return [];
    case 'string':
      return 'x';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      return null;
  }
}

interface Leaf {
  path: string;
  kind: 'string' | 'number';
  schema: Schema;
  build(bad: unknown): unknown;
}

/** Every string and number leaf of a schema, each with a builder of a body holding a bad value there. */
function leaves(s0: Schema, path: string, build: (v: unknown) => unknown, depth = 0): Leaf[] {
  const s = resolve(s0);
  if (depth > 8 || 'const' in s || Array.isArray(s.enum)) {
    // A literal still is a string or number field: the text and number checks come before the schema.
    if (typeof s.const === 'string' || typeof s.enum?.[0] === 'string') return [{ path, kind: 'string', schema: s, build }];
    if (typeof s.const === 'number' || typeof s.enum?.[0] === 'number') return [{ path, kind: 'number', schema: s, build }];
    return [];
  }
  const branches = s.anyOf ?? s.oneOf;
  if (branches) return branches.flatMap((b: Schema) => leaves(b, path, build, depth + 1));
  switch ([s.type].flat()[0]) {
    case 'object': {
      const out: Leaf[] = [];
      for (const [k, child] of Object.entries<Schema>(s.properties ?? {})) {
        out.push(...leaves(child, `${path}.${k}`, (v) => build({ ...(sample(s) as object), [k]: v }), depth + 1));
      }
      return out;
    }
    case 'array':
      return leaves(s.items ?? {}, `${path}[0]`, (v) => build([v]), depth + 1);
    case 'string':
      return [{ path, kind: 'string', schema: s, build }];
    case 'integer':
    case 'number':
      return [{ path, kind: 'number', schema: s, build }];
    default:
      return [];
  }
}

/** Values at the edges of what a leaf's schema allows (and just past them), for the "never a 5xx" walk. */
function edges(leaf: Leaf): unknown[] {
  const s = leaf.schema;
  if ('const' in s || Array.isArray(s.enum)) return [];
  if (leaf.kind === 'number') {
    const out: unknown[] = [-1, 0, 0.5, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
    if (typeof s.maximum === 'number') out.push(s.maximum, s.maximum + 1);
    if (typeof s.minimum === 'number') out.push(s.minimum, s.minimum - 1);
    return out;
  }
  const max = typeof s.maxLength === 'number' ? s.maxLength : 10_000;
  return ['', ' ', 'א'.repeat(max), '😀'.repeat(max), 'x'.repeat(max + 1), "'; DROP TABLE documents; --", '\\u0000', '\u202e\u200f\t\r\n'];
}

const NUMBER_MARK = '__the_number__';

describe('the OpenAPI document, walked', WALK, () => {
  it('covers the API: operations with JSON bodies, query and path parameters', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(40);
    expect(ops.filter((o) => o.op.requestBody?.content?.['application/json']).length).toBeGreaterThan(15);
  });

  it('every string field of every JSON body refuses NUL and unpaired surrogates; every number field refuses 1e309', async () => {
    const started = Date.now();
    let requests = 0;
    const seen = new Set<string>();
    for (const { method, path, op } of operations()) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      const url = fillPath(path);
      for (const leaf of leaves(schema, 'body', (v) => v)) {
        const label = `${method} ${path} ${leaf.path} ${leaf.kind}`;
        if (seen.has(label)) continue; // the same field reached through two union branches
        seen.add(label);
        const payloads =
          leaf.kind === 'string'
            ? [JSON.stringify(leaf.build('a\u0000b')), JSON.stringify(leaf.build('\ud800'))]
            : [JSON.stringify(leaf.build(NUMBER_MARK)).replace(`"${NUMBER_MARK}"`, '1e309')];
        for (const payload of payloads) {
          const r = await env.call(method, url, { key, payload, headers: JSON_HEADERS });
          requests++;
          expectRefused(r, 400, { reason: 'validation', field: leaf.path, label: `${method} ${path} ${payload.slice(0, 120)}` });
          expect(r.body.error, label).toMatch(leaf.kind === 'string' ? /NUL|surrogate/ : /between -9007199254740991 and 9007199254740991/);
        }
      }
    }
    expect(requests).toBeGreaterThan(150);
    expect(Date.now() - started).toBeLessThan(45_000);
  });

  it('every query parameter and every path parameter refuses NUL', async () => {
    let requests = 0;
    for (const { method, path, op } of operations()) {
      for (const p of (op.parameters ?? []) as Schema[]) {
        if (p.in !== 'query' && p.in !== 'path') continue;
        const base = p.in === 'path' ? fillPath(path, { [p.name]: 'a%00b' }) : `${fillPath(path)}?${encodeURIComponent(p.name)}=a%00b`;
        const hasBody = Boolean(op.requestBody?.content?.['application/json']);
        const r = await env.call(method, base, { key, ...(hasBody ? { payload: '{}', headers: JSON_HEADERS } : {}) });
        requests++;
        expectRefused(r, 400, { reason: 'validation', field: `${p.in === 'path' ? 'params' : 'querystring'}.${p.name}`, label: `${method} ${base}` });
      }
    }
    expect(requests).toBeGreaterThan(40);
  });
});

describe('edge values of every body field', WALK, () => {
  it('never answer a 5xx: the largest and smallest allowed values, and just past them', async () => {
    const started = Date.now();
    let requests = 0;
    const seen = new Set<string>();
    for (const { method, path, op } of operations()) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      const url = fillPath(path);
      for (const leaf of leaves(schema, 'body', (v) => v)) {
        const label = `${method} ${path} ${leaf.path}`;
        if (seen.has(label)) continue;
        seen.add(label);
        for (const value of edges(leaf)) {
          const r = await env.call(method, url, { key, payload: JSON.stringify(leaf.build(value)), headers: JSON_HEADERS });
          requests++;
          expect(r.status, `${label} = ${JSON.stringify(value).slice(0, 40)}: ${r.raw.toString().slice(0, 200)}`).toBeLessThan(500);
          if (r.status >= 400) expect(Object.keys(r.body).sort(), label).toEqual(['error', 'reason', 'requestId']);
        }
      }
    }
    expect(requests).toBeGreaterThan(500);
    expect(Date.now() - started).toBeLessThan(90_000);
  });
});

describe('edge values of every query and path parameter', WALK, () => {
  it('never answer a 5xx', async () => {
    const values = [
      '',
      ' ',
      '\\',
      '%',
      '_',
      "'",
      '"',
      '*',
      '\\%',
      'a\\',
      '..',
      '../x',
      '%2F',
      '-1',
      '0',
      '1e309',
      '9007199254740993',
      'null',
      '[]',
      'א'.repeat(300),
      'x'.repeat(2000),
    ];
    let requests = 0;
    for (const { method, path, op } of operations()) {
      const hasBody = Boolean(op.requestBody?.content?.['application/json']);
      for (const p of (op.parameters ?? []) as Schema[]) {
        if (p.in !== 'query' && p.in !== 'path') continue;
        for (const v of values) {
          if (p.in === 'path' && v === '') continue;
          const enc = encodeURIComponent(v);
          const url = p.in === 'path' ? fillPath(path, { [p.name]: enc }) : `${fillPath(path)}?${encodeURIComponent(p.name)}=${enc}`;
          const r = await env.call(method, url, { key, ...(hasBody ? { payload: '{}', headers: JSON_HEADERS } : {}) });
          requests++;
          expect(r.status, `${method} ${url.slice(0, 120)}: ${r.raw.toString().slice(0, 200)}`).toBeLessThan(500);
          if (r.status >= 400 && String(r.headers['content-type']).includes('json')) {
            expect(Object.keys(r.body).sort(), url).toEqual(['error', 'reason', 'requestId']);
          }
        }
      }
    }
    expect(requests).toBeGreaterThan(500);
  });
});

// ---------------------------------------------------------------------------------------------
// The hostile walk (issue 16 item 5): for every operation of the document, real objects behind its
// path (a fresh business, and a fresh party, draft document, draft expense or webhook for `{id}`),
// so that what passes the door reaches the handler and the database. Every request must answer
// below 500; every answer of 400 and above carries `{error, reason, requestId}` and X-Request-Id;
// the server is healthy afterwards. Fixed seed: the same bytes every run.
// ---------------------------------------------------------------------------------------------

/** mulberry32: a small deterministic PRNG (seed fixed below). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const SEED = 0x16_16;

interface Probe {
  label: string;
  payload?: string | Buffer;
  headers?: Record<string, string>;
}

const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const hugeArray = (n: number) => `[${new Array(n).fill('0').join(',')}]`;

/** The structural and content-type probes sent to every operation, whatever its body. */
function structuralProbes(op: Schema, random: () => number): Probe[] {
  const json = { 'content-type': 'application/json' };
  const schema = op.requestBody?.content?.['application/json']?.schema;
  const body = schema ? sample(schema) : {};
  const firstKey = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body)[0] : undefined;
  const inner = JSON.stringify(body ?? {}).slice(1, -1);
  const dup = firstKey ? `{${inner},${JSON.stringify(firstKey)}:${JSON.stringify((body as Record<string, unknown>)[firstKey])}}` : '{"x":1,"x":2}';
  const garbage = Buffer.from(Array.from({ length: 512 }, () => Math.floor(random() * 256)));
  const boundary = `b${Math.floor(random() * 1e9)}`;
  const multipartGarbage = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="r.png"\r\nContent-Type: image/png\r\n\r\n`),
    garbage,
    Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name=\r\n\r\n`), // truncated: no closing boundary
  ]);
  return [
    { label: 'duplicate keys', payload: dup, headers: json },
    { label: 'duplicate keys, nested', payload: '{"a":{"b":1,"b":2}}', headers: json },
    { label: 'objects 40 deep', payload: deepObject(40), headers: json },
    { label: 'arrays 40 deep', payload: deepArray(40), headers: json },
    { label: 'arrays 5000 deep', payload: deepArray(5000), headers: json },
    { label: 'objects 5000 deep', payload: deepObject(5000), headers: json },
    { label: 'arrays 20000 deep', payload: deepArray(20_000), headers: json },
    { label: 'array of 10001', payload: hugeArray(10_001), headers: json },
    { label: 'array of 50000 in a field', payload: `{${firstKey ? JSON.stringify(firstKey) : '"x"'}:${hugeArray(50_000)}}`, headers: json },
    { label: 'text/plain', payload: 'hello', headers: { 'content-type': 'text/plain' } },
    { label: 'text/plain holding JSON', payload: JSON.stringify(body ?? {}), headers: { 'content-type': 'text/plain; charset=utf-8' } },
    { label: 'application/xml', payload: '<?xml version="1.0"?><a>1</a>', headers: { 'content-type': 'application/xml' } },
    { label: 'multipart, garbage', payload: multipartGarbage, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } },
    { label: 'multipart, no boundary', payload: garbage, headers: { 'content-type': 'multipart/form-data' } },
    { label: 'form-urlencoded', payload: 'a=1&a=2&b=%00', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    { label: 'empty body, content-type json', payload: '', headers: json },
    { label: 'malformed JSON', payload: '{"a":', headers: json },
    { label: 'JSON with trailing garbage', payload: `${JSON.stringify(body ?? {})} x`, headers: json },
    { label: 'not UTF-8', payload: Buffer.concat([Buffer.from('{"a":"'), garbage.subarray(0, 16), Buffer.from('"}')]), headers: json },
    { label: 'JSON, charset utf-16', payload: JSON.stringify(body ?? {}), headers: { 'content-type': 'application/json; charset=utf-16' } },
    { label: 'JSON null', payload: 'null', headers: json },
    { label: 'JSON string', payload: '"x"', headers: json },
    { label: 'JSON number 1e309', payload: '1e309', headers: json },
    { label: 'garbage content type', payload: '{}', headers: { 'content-type': '}{;;=' } },
  ];
}

const MARK = '__hostile_value__';
const raw = (build: (v: unknown) => unknown, text: string) => JSON.stringify(build(MARK)).replace(`"${MARK}"`, text);

/** Every value class in one leaf, whatever the leaf's declared type (raw JSON texts). */
function valueProbes(leaf: Leaf): [string, string][] {
  const max = typeof leaf.schema.maxLength === 'number' ? leaf.schema.maxLength : 5_000;
  const b = leaf.build;
  return [
    ['NUL', JSON.stringify(b('a\u0000b'))],
    ['lone high surrogate', JSON.stringify(b('x\ud800'))],
    ['lone low surrogate', JSON.stringify(b('\udc00x'))],
    ['1e309', raw(b, '1e309')],
    ['-1e309', raw(b, '-1e309')],
    ['-0', raw(b, '-0')],
    ['2^53+1', raw(b, '9007199254740993')],
    ['impossible date', JSON.stringify(b('2025-02-30'))],
    ['impossible date-time', JSON.stringify(b('2025-13-45T25:61:61Z'))],
    ['year 0', JSON.stringify(b('0000-01-01'))],
    ['overlong string', JSON.stringify(b('א'.repeat(max + 1)))],
    ['huge string', JSON.stringify(b('x'.repeat(50_000)))],
  ];
}

/** Hostile texts for query and path parameters, URL-encoded as sent. */
const PARAM_VALUES: [string, string][] = [
  ['NUL', 'a%00b'],
  ['lone surrogate (CESU-8 bytes)', '%ED%A0%80'],
  ['truncated UTF-8', '%F0%9F'],
  ['1e309', '1e309'],
  ['-0', '-0'],
  ['2^53+1', '9007199254740993'],
  ['impossible date', '2025-02-30'],
  ['year 0', '0000-00-00'],
  ['overlong', 'x'.repeat(5_000)],
];

interface Walk {
  requests: number;
  status: Map<number, number>;
}

let creator: { id: string; secret: string; used: number } | undefined;

async function fixturesFor(path: string, k: string): Promise<Record<string, string>> {
  // A fresh business per operation (a deactivation or a mutation stays in it), created by a key of
  // the same account that is replaced every 40 businesses (new businesses are limited per key and day).
  if (!creator || ++creator.used > 40) {
    if (creator) await env.sql('live', `UPDATE api_keys SET revoked_at = now() WHERE id = '${creator.id}'`);
    creator = { ...(await a.mint({ mode: 'test', scopes: ['businesses'] })), used: 1 };
  }
  const b = (await env.business(creator.secret)).id;
  const ids: Record<string, string> = { bid: b };
  const base = `/v1/businesses/${b}`;
  const made = async (method: string, url: string, body: unknown, pick: (r: any) => string) => {
    const r = await env.call(method, url, { key: k, body });
    expect(r.status, `fixture ${url}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return pick(r.body);
  };
  if (path.includes('/parties/{id}')) ids.id = await made('POST', `${base}/parties`, { name: 'לקוח', phone: '050-1234567' }, (r) => r.party.id);
  else if (path.includes('/documents/{id}')) {
    ids.id = await made(
      'POST',
      `${base}/documents`,
      { docType: 305, party: { name: 'לקוח' }, lines: [{ description: 'x', quantity: 1, unitPriceExVat: 100 }] },
      (r) => r.document.id,
    );
  } else if (path.includes('/expenses/{id}')) {
    ids.id = await made(
      'POST',
      `${base}/expenses`,
      {
        categoryKey: 'office',
        supplier: { name: 'ספק', taxId: '512200502' },
        supplierDocType: 'tax_invoice',
        supplierDocNumber: 'INV-1',
        supplierDocDate: '2026-02-27',
        amountExVat: 10000,
        vatAmount: 1800,
      },
      (r) => r.expense.id,
    );
  } else if (path.includes('/webhooks/{id}')) {
    ids.id = await made(
      'POST',
      '/v1/webhooks',
      { url: 'https://127.0.0.1:9/pinkas', businessId: b, events: ['document.issued'] },
      (r) => r.webhook?.id ?? r.endpoint?.id ?? r.id,
    );
  }
  return ids;
}

const fillReal = (path: string, ids: Record<string, string>, override: Record<string, string> = {}) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => override[name] ?? ids[name] ?? 'x_nope');

/** The one check of every answer of the walk. */
function checkAnswer(r: CallResult, label: string, walk: Walk): void {
  walk.requests++;
  walk.status.set(r.status, (walk.status.get(r.status) ?? 0) + 1);
  expect(r.status, `${label}: ${r.raw.toString().slice(0, 300)}`).toBeLessThan(500);
  expect(r.headers['x-request-id'], label).toMatch(/^req_[0-9a-z]{26}$/);
  if (r.status >= 400) expectErrorShape(r, label);
  else if (r.status >= 300) expect(r.headers.location, label).toBeTruthy();
}

describe('the hostile walk: every operation, every class', WALK, () => {
  const walk: Walk = { requests: 0, status: new Map() };
  const random = prng(SEED);
  const timings: Record<string, number> = {};

  it('structure and content types: duplicate keys, deep nesting, huge arrays, wrong and malformed bodies', async () => {
    const started = Date.now();
    for (const { method, path, op } of operations()) {
      const ids = await fixturesFor(path, key);
      const url = fillReal(path, ids);
      for (const probe of structuralProbes(op, random)) {
        const r = await env.call(method, url, { key, payload: probe.payload, headers: probe.headers });
        checkAnswer(r, `${method} ${path} [${probe.label}]`, walk);
      }
    }
    timings.structure = Date.now() - started;
  });

  it('every value class in every body field', async () => {
    const started = Date.now();
    for (const { method, path, op } of operations()) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      const ids = await fixturesFor(path, key);
      const url = fillReal(path, ids);
      const seen = new Set<string>();
      for (const leaf of leaves(schema, 'body', (v) => v)) {
        if (seen.has(leaf.path)) continue;
        seen.add(leaf.path);
        for (const [cls, payload] of valueProbes(leaf)) {
          const r = await env.call(method, url, { key, payload, headers: JSON_HEADERS });
          checkAnswer(r, `${method} ${path} ${leaf.path} [${cls}]`, walk);
        }
      }
    }
    timings.bodyFields = Date.now() - started;
  });

  it('every value class in every query and path parameter', async () => {
    const started = Date.now();
    for (const { method, path, op } of operations()) {
      const params = ((op.parameters ?? []) as Schema[]).filter((p) => p.in === 'query' || p.in === 'path');
      if (params.length === 0) continue;
      const ids = await fixturesFor(path, key);
      const hasBody = Boolean(op.requestBody?.content?.['application/json']);
      for (const p of params) {
        for (const [cls, v] of PARAM_VALUES) {
          const url = p.in === 'path' ? fillReal(path, ids, { [p.name]: v }) : `${fillReal(path, ids)}?${encodeURIComponent(p.name)}=${v}`;
          const r = await env.call(method, url, { key, ...(hasBody ? { payload: '{}', headers: JSON_HEADERS } : {}) });
          checkAnswer(r, `${method} ${path} ${p.in}.${p.name} [${cls}]`, walk);
        }
      }
    }
    timings.parameters = Date.now() - started;
  });

  it('the server is healthy afterwards, its exports verify, and the walk was wide', async () => {
    expect((await env.call('GET', '/healthz')).status).toBe(200);
    const ids = await fixturesFor('/v1/businesses/{bid}/documents/{id}', key);
    const issued = await env.call('POST', `/v1/businesses/${ids.bid}/documents/${ids.id}/issue`, { key, body: {} });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    expect((await env.call('GET', `/v1/businesses/${ids.bid}/documents/${ids.id}`, { key })).body.document.status).toBe('issued');
    expect((await env.call('GET', '/v1/keys', { key })).status).toBe(200);
    // Whatever the walk managed to issue (a hostile value that passed the door), the books export and verify.
    const withIssued = await env.sql<{ business_id: string }>('sandbox', "SELECT DISTINCT business_id FROM documents WHERE status <> 'draft'");
    expect(withIssued.length).toBeGreaterThan(0);
    for (const { business_id } of withIssued) {
      const run = await env.call('POST', `/v1/businesses/${business_id}/exports/openfrmt`, { key, body: { from: '2000-01-01', to: '2099-12-31' } });
      expect(run.status, `${business_id}: ${JSON.stringify(run.body).slice(0, 400)}`).toBe(201);
      expect(run.body.exportRun.status, business_id).toBe('completed');
      expect(run.body.exportRun.verification.ok, `${business_id}: ${JSON.stringify(run.body.exportRun.verification).slice(0, 400)}`).toBe(true);
    }
    expect(walk.requests).toBeGreaterThan(3_000);
    console.info(
      `hostile walk: ${walk.requests} requests, ${withIssued.length} businesses exported, statuses ${JSON.stringify(Object.fromEntries([...walk.status].sort((a, b) => a[0] - b[0])))}, ms ${JSON.stringify(timings)}`,
    );
  });
});
