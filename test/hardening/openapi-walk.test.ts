import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { expectRefused, JSON_HEADERS } from './helpers.ts';

// Issue 16: walks the app's own OpenAPI document. For every operation with a JSON body, every
// string field (at any depth, in every branch of a union, in array items) gets a NUL and an
// unpaired surrogate, and every number field 1e309; every query and path parameter gets a NUL.
// Each must answer 400 `validation` naming that field, in the one error shape: never a 5xx.
// Deterministic (no randomness) and bounded (one request per field and variant).

type Schema = Record<string, any>;
interface Operation { method: string; path: string; op: Schema }

let env: TestEnv;
let key: string;
let bid: string;
let doc: Schema;
beforeAll(async () => {
  env = await createTestEnv();
  // Every scope (ocr too), so that no route answers 403 before it reads its input.
  const a: TestAccount = await env.account({ ocr: true });
  key = (await a.mint({ mode: 'test', scopes: ['businesses', 'documents', 'expenses', 'export', 'ocr'] })).secret;
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

interface Leaf { path: string; kind: 'string' | 'number'; schema: Schema; build(bad: unknown): unknown }

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

describe('the OpenAPI document, walked', () => {
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
          expectRefused(r, 400, 'validation', leaf.path, `${method} ${path} ${payload.slice(0, 120)}`);
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
        expectRefused(r, 400, 'validation', `${p.in === 'path' ? 'params' : 'querystring'}.${p.name}`, `${method} ${base}`);
      }
    }
    expect(requests).toBeGreaterThan(40);
  });
});

describe('edge values of every body field', () => {
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

describe('edge values of every query and path parameter', () => {
  it('never answer a 5xx', async () => {
    const values = ['', ' ', '\\', '%', '_', "'", '"', '*', '\\%', 'a\\', '..', '../x', '%2F', '-1', '0', '1e309', '9007199254740993', 'null', '[]', 'א'.repeat(300), 'x'.repeat(2000)];
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
