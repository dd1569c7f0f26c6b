import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/env.ts';
import { renderRunner, tempDataDir } from '../prints/helpers.ts';
import { setWebhookResolver } from '../../src/webhooks/runtime.ts';
import { createOpenapiValidator, validateTraffic } from './openapi-validator.ts';
import { commandLines, jqPath, parseStep, shellBlocks, type Step, type Vars } from './guide-shell.ts';

// docs/integrate.md cannot drift: every `METHOD /path` it names and every request it makes exists in
// the OpenAPI document with that method, every JSON field it sends is in the operation's request
// schema and every query parameter in its parameters; and its shell is run as written, in order,
// against a real server (the first-start key's scopes), each answer checked against the document.

type Json = Record<string, any>;
const GUIDE = readFileSync(path.resolve(import.meta.dirname, '../../docs/integrate.md'), 'utf8');
const ORIGIN = 'http://localhost:3000';

let env: TestEnv;
let doc: Json;
beforeAll(async () => {
  env = await createTestEnv({ env: { DATA_DIR: tempDataDir() } });
  doc = (await env.call('GET', '/v1/openapi.json')).body;
  // The guide's webhook host, played as a public address (no DNS in tests).
  setWebhookResolver(env.s, async () => ['93.184.215.14']);
});
afterAll(async () => env?.close());

/** The operation of `METHOD /concrete/path` (query ignored), by the document's path templates. */
function operationOf(method: string, url: string): { template: string; op: Json } | undefined {
  const pathname = url.split('?')[0];
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    const re = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(pathname) && item[method.toLowerCase()]) return { template, op: item[method.toLowerCase()] };
  }
  return undefined;
}

const deref = (schema: Json): Json => (schema?.$ref ? deref(jqPath(doc, schema.$ref.slice(1).replaceAll('/', '.')) as Json) : schema);
/** The alternatives a value may match: anyOf / oneOf / allOf flattened. */
const variants = (schema: Json): Json[] => {
  const s = deref(schema ?? {});
  const nested = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
  return nested.length ? nested.flatMap(variants) : [s];
};

/** Field names of `value` that no schema alternative declares, as JSON paths. */
function unknownFields(value: unknown, schema: Json, at: string): string[] {
  const alts = variants(schema);
  if (Array.isArray(value)) {
    const items = alts.filter((a) => a.items).map((a) => a.items);
    return value.flatMap((v, i) => unknownFields(v, { anyOf: items }, `${at}[${i}]`));
  }
  if (!value || typeof value !== 'object') return [];
  const objects = alts.filter((a) => a.properties);
  return Object.entries(value).flatMap(([k, v]) => {
    const declared = objects.filter((o) => k in o.properties).map((o) => o.properties[k]);
    return declared.length ? unknownFields(v, { anyOf: declared }, `${at}.${k}`) : [`${at}.${k}`];
  });
}

/** What the guide names or requests that the document does not hold (nothing is run). */
function staticProblems(md: string): string[] {
  const problems: string[] = [];
  const hidden = new Set(env.app.routeList.filter((r) => r.hidden).map((r) => `${r.method} ${r.url}`));
  for (const [, method, p] of md.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s]*)`/g)) {
    if (!operationOf(method, p) && !hidden.has(`${method} ${p}`)) problems.push(`the guide names ${method} ${p}, which the server does not have`);
  }
  const vars: Vars = new Map([['KEY', 'bk_test_x']]);
  for (const block of shellBlocks(md)) {
    for (const line of commandLines(block)) {
      const step = parseStep(line, vars);
      if (step.kind === 'set' && !vars.has(step.name)) vars.set(step.name, step.value);
      if (step.kind !== 'curl') continue;
      // No request is made: a captured id is a placeholder.
      if (step.capture) vars.set(step.capture, 'id_x');
      problems.push(...requestProblems(step));
    }
  }
  return problems;
}

function requestProblems(step: Extract<Step, { kind: 'curl' }>): string[] {
  const { method, url, body } = step.curl;
  const where = `${method} ${url.replace(ORIGIN, '')}`;
  const found = operationOf(method, url.replace(ORIGIN, ''));
  if (!url.startsWith(`${ORIGIN}/`)) return [`${where}: the URL is not on ${ORIGIN}`];
  if (!found) return [`${where}: no such operation in the OpenAPI document`];
  const problems: string[] = [];
  const query = new URL(url).searchParams;
  const params = new Set((found.op.parameters ?? []).filter((p: Json) => p.in === 'query').map((p: Json) => p.name));
  for (const name of query.keys()) if (!params.has(name)) problems.push(`${where}: query parameter ${name} is not documented`);
  if (body !== undefined) {
    const schema = found.op.requestBody?.content?.['application/json']?.schema;
    if (!schema) problems.push(`${where}: the operation takes no JSON body`);
    else problems.push(...unknownFields(JSON.parse(body), schema, 'body').map((f) => `${where}: ${f} is not in the request schema`));
  }
  return problems;
}

/** Runs the guide's shell in order; answers what went otherwise than the guide says. */
async function runGuide(md: string, key: string): Promise<{ problems: string[]; operations: Set<string> }> {
  const problems: string[] = [];
  const operations = new Set<string>();
  const vars: Vars = new Map([['KEY', key]]);
  for (const block of shellBlocks(md)) {
    for (const line of commandLines(block)) {
      const step = parseStep(line, vars);
      // KEY is the test's own key, not the placeholder the guide shows.
      if (step.kind === 'set' && step.name !== 'KEY') vars.set(step.name, step.value);
      if (step.kind !== 'curl') continue;
      const { method, url, headers, body } = step.curl;
      const target = url.replace(ORIGIN, '');
      operations.add(operationOf(method, target)?.op.operationId ?? `${method} ${target}`);
      let res = await env.call(method, target, { headers, payload: body });
      for (let tries = 0; step.poll && res.status === 409 && tries < 5; tries++) {
        if (res.body?.reason !== 'pdf_pending' || !res.headers['retry-after']) problems.push(`${target}: 409 without pdf_pending and Retry-After`);
        await renderRunner(env).runDue('sandbox');
        res = await env.call(method, target, { headers, payload: body });
      }
      const said = `${method} ${target} answered ${res.status} ${JSON.stringify(res.body ?? '').slice(0, 200)}`;
      const e = step.expect;
      if (e) {
        if (res.status !== e.status) problems.push(`${said}; the guide says ${e.status}`);
        if (e.reason && res.body?.reason !== e.reason) problems.push(`${said}; the guide says reason ${e.reason}`);
        if (e.header && String(res.headers[e.header[0].toLowerCase()]) !== e.header[1]) problems.push(`${said}; the guide says ${e.header.join(': ')}`);
      } else if (res.status < 200 || res.status > 299) problems.push(`${said}; the guide expects success`);
      if (step.curl.output && String(res.headers['content-type']).includes('json')) problems.push(`${said}; -o expects a file, not JSON`);
      if (step.jq) {
        const value = jqPath(res.body, step.jq);
        if (value === undefined) problems.push(`${said}; the guide reads ${step.jq}, which it does not hold`);
        if (step.capture) vars.set(step.capture, String(value));
      }
    }
  }
  return { problems, operations };
}

describe('docs/integrate.md against the OpenAPI document', () => {
  it('names only operations the document holds, and sends only documented fields and query parameters', () => {
    expect(staticProblems(GUIDE)).toEqual([]);
  });

  it('runs as written: the whole lifecycle succeeds and every expectation it states holds', async () => {
    const a = await env.account();
    const validator = createOpenapiValidator(doc);
    const documented = validateTraffic(env, validator);
    const { problems, operations } = await runGuide(GUIDE, a.test);
    expect(problems).toEqual([]);
    expect(documented).toEqual([]);
    // What the guide promises to show (issue 18, part 9).
    for (const id of [
      'createBusiness',
      'createParty',
      'createDocument',
      'issueDocument',
      'printDocument',
      'createCreditNote',
      'listDocuments',
      'createOpenfrmtExport',
      'downloadFile',
      'createWebhook',
    ]) {
      expect(operations, id).toContain(id);
    }
  });

  it('catches drift: a renamed path, an unknown field, an undocumented query parameter', () => {
    const drifted = GUIDE.replace('/credit-note', '/credit').replace('"taxId":"123456782"', '"taxNumber":"123456782"').replace('?take=10', '?limit=10');
    const problems = staticProblems(drifted).join('\n');
    expect(problems).toMatch(/POST \/v1\/businesses\/id_x\/documents\/id_x\/credit: no such operation/);
    expect(problems).toMatch(/body\.taxNumber is not in the request schema/);
    expect(problems).toMatch(/query parameter limit is not documented/);
    expect(staticProblems('`GET /v1/nothing-here`').join('\n')).toMatch(/names GET \/v1\/nothing-here/);
  });

  it('catches drift: an answer other than the guide states', async () => {
    const a = await env.account();
    const md = [
      '```sh',
      'API=http://localhost:3000/v1',
      'H=(-H "X-Api-Key: $KEY")',
      'curl -s "${H[@]}" $API/businesses/biz_nope   # → 404 conflict',
      'curl -s "${H[@]}" $API/keys | jq .nokeys',
      '```',
    ].join('\n');
    const { problems } = await runGuide(md, a.test);
    expect(problems.join('\n')).toMatch(/answered 404 .*the guide says reason conflict/);
    expect(problems.join('\n')).toMatch(/the guide reads \.nokeys/);
    expect(() => parseStep('curl -s $API/keys > out.json', new Map([['API', ORIGIN]]))).toThrow(/unsupported shell character >/);
  });

  it('serves /llms.txt and the guide without a key', async () => {
    const llms = await env.call('GET', '/llms.txt');
    expect([llms.status, llms.headers['content-type']]).toEqual([200, 'text/plain; charset=utf-8']);
    expect(llms.raw.toString()).toContain('- `POST /v1/businesses/{bid}/documents/{id}/issue` (issueDocument)');
    const guide = await env.call('GET', '/integrate.md');
    expect([guide.status, guide.headers['content-type']]).toEqual([200, 'text/markdown; charset=utf-8']);
    expect(guide.raw.toString()).toBe(GUIDE);
    expect(Object.keys(doc.paths).filter((p) => p.includes('llms') || p.includes('integrate'))).toEqual([]);
  });
});
