import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { CallOptions, CallResult, TestEnv } from '../helpers/env.ts';

/**
 * Checks real answers against the app's own OpenAPI document: the operation and its status must be
 * documented, the content type must be one the response lists, a JSON body must match its schema
 * (Ajv 2020 with the document's components), every answer carries `X-Request-Id` and
 * `X-Service-Mode`. Reusable: `validateTraffic(env, validator)` checks every `env.call` of a test.
 */

type Json = Record<string, any>;

export interface OpenapiValidator {
  /** Problems of one answer (empty when it is exactly as documented). */
  check(method: string, url: string, res: CallResult): string[];
  /** `METHOD /path/{template}` of the operations and statuses checked so far. */
  seen: Set<string>;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export function createOpenapiValidator(doc: Json): OpenapiValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addFormat('binary', true);
  // The whole document under one id, so `#/components/schemas/…` inside a response schema resolves.
  ajv.addSchema({ ...doc, $id: 'openapi' }, 'openapi');
  const templates = Object.keys(doc.paths)
    .map((path) => ({
      path,
      re: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`),
      params: (path.match(/\{/g) ?? []).length,
    }))
    // A literal segment wins over a parameter (`/parties/find-or-create` before `/parties/{id}`).
    .sort((a, b) => a.params - b.params);
  const compiled = new Map<string, ReturnType<Ajv2020['compile']>>();
  const seen = new Set<string>();

  function check(method: string, url: string, res: CallResult): string[] {
    const pathname = url.split('?')[0];
    const m = method.toLowerCase();
    const t = templates.find((x) => x.re.test(pathname) && doc.paths[x.path][m]);
    if (!t) return [`${method} ${pathname}: no documented operation`];
    const where = `${method} ${t.path} → ${res.status}`;
    const response = doc.paths[t.path][m].responses?.[String(res.status)];
    if (!response) return [`${where}: status not documented (${JSON.stringify(res.body ?? res.raw.toString().slice(0, 200))})`];
    seen.add(where);
    const problems: string[] = [];
    for (const h of ['x-request-id', 'x-service-mode']) if (!res.headers[h]) problems.push(`${where}: header ${h} missing`);
    if (!['live', 'sandbox'].includes(String(res.headers['x-service-mode']))) problems.push(`${where}: X-Service-Mode "${res.headers['x-service-mode']}"`);
    if (response.headers?.['Retry-After'] && res.body?.reason === 'pdf_pending' && !res.headers['retry-after']) problems.push(`${where}: Retry-After missing`);
    const mediaType = String(res.headers['content-type'] ?? '')
      .split(';')[0]
      .trim();
    if (!response.content) {
      if (res.raw.length > 0) problems.push(`${where}: a body where none is documented`);
      return problems;
    }
    if (!response.content[mediaType]) {
      problems.push(`${where}: content type "${mediaType}" not documented (${Object.keys(response.content).join(', ')})`);
      return problems;
    }
    const schema = response.content[mediaType].schema;
    if (mediaType !== 'application/json') {
      if (schema?.format !== 'binary') problems.push(`${where}: ${mediaType} is not described as binary`);
      if (res.raw.length === 0) problems.push(`${where}: empty ${mediaType} body`);
      return problems;
    }
    const ref = `openapi#/paths/${escapePointer(t.path)}/${m}/responses/${res.status}/content/${escapePointer(mediaType)}/schema`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    if (!validate(res.body)) {
      for (const e of validate.errors ?? []) problems.push(`${where}: body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
    }
    return problems;
  }
  return { check, seen };
}

/** Validates every `env.call` from now on; answers the problems found so far (a live array). */
export function validateTraffic(env: TestEnv, validator: OpenapiValidator): string[] {
  const problems: string[] = [];
  const call = env.call.bind(env);
  env.call = async (method: string, url: string, opts?: CallOptions) => {
    const res = await call(method, url, opts);
    // The document and the console are not operations of the API.
    if (url.startsWith('/v1/') || url.startsWith('/api/') || url.startsWith('/ita/')) {
      if (url !== '/v1/openapi.json') problems.push(...validator.check(method, url, res));
    }
    return res;
  };
  return problems;
}
