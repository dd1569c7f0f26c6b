import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Scope } from '../platform/catalog/scopes.ts';
import { acceptsEmptyBody, DOCUMENTED_BODY } from '../platform/http/openapi.ts';
import { inlineRefs, toolInput, type JsonSchema, type RouteInputs, type ToolInput } from './input-schema.ts';

/**
 * The MCP tools are the REST operations themselves: each is read off a route as it is registered
 * (its operationId, summary, description and TypeBox schemas, the same ones that build
 * /v1/openapi.json), and a call is that route's request.
 */

/** The areas an agent keeps books in (issue 33). Keys, webhooks, files, backups, the ledger and allocation stay REST-only. */
const TOOL_TAGS: readonly string[] = ['businesses', 'parties', 'documents', 'expenses', 'exports', 'reports'];

export interface Operation {
  /** The tool's name: the route's operationId. */
  name: string;
  title: string;
  description: string;
  method: string;
  /** The route pattern, `/v1/businesses/:bid/documents`. */
  url: string;
  /** The key scope the route needs (`config.scope`); none: any key. */
  scope?: Scope;
  input: ToolInput;
}

interface Route {
  method: string;
  url: string;
  schema: JsonSchema;
  scope?: Scope;
  bodyUse: RouteInputs['bodyUse'];
}

/** A 2xx answer an agent can read: JSON (a schema, or a `content` map that offers JSON). */
function answersJson(response: unknown): boolean {
  return Object.entries((response ?? {}) as Record<string, JsonSchema>)
    .filter(([status]) => status.startsWith('2'))
    .every(([, r]) => !r.content || Object.hasOwn(r.content as object, 'application/json'));
}

function toolRoute(r: RouteOptions): Route | undefined {
  const schema = r.schema as JsonSchema | undefined;
  const methods = [r.method].flat();
  // HEAD: the copy Fastify makes of each GET, with the GET's schema and operationId.
  if (!schema || schema.hide || typeof schema.operationId !== 'string' || methods.length !== 1 || methods[0] === 'HEAD' || !r.url.startsWith('/v1/'))
    return undefined;
  const tag = (schema.tags as string[] | undefined)?.[0];
  // A body the handler reads itself (a multipart receipt) and an answer in bytes (a PDF) are no JSON tool.
  if (!tag || !TOOL_TAGS.includes(tag) || schema[DOCUMENTED_BODY] || !answersJson(schema.response)) return undefined;
  const bodyUse = !schema.body ? 'none' : acceptsEmptyBody(r) ? 'optional' : 'required';
  return { method: methods[0], url: r.url, schema, scope: r.config?.scope, bodyUse };
}

/** The top-level fields of the first 2xx JSON answer, so that an agent knows where its result is. */
function answerFields(response: unknown): string[] {
  const success = Object.entries((response ?? {}) as Record<string, JsonSchema>).find(([status]) => status.startsWith('2'))?.[1];
  const json = (success?.content as Record<string, JsonSchema> | undefined)?.['application/json']?.schema ?? success;
  return Object.keys(((json as JsonSchema | undefined)?.properties ?? {}) as object);
}

function descriptionOf(schema: JsonSchema): string {
  const summary = String(schema.summary ?? schema.operationId).replace(/\.$/, '');
  const details = typeof schema.description === 'string' ? `\n\n${schema.description}` : '';
  const fields = answerFields(schema.response);
  return `${summary}.${details}${fields.length ? `\n\nAnswers {${fields.join(', ')}}.` : ''}`;
}

function operationOf(route: Route, shared: Record<string, unknown>): Operation {
  // A copy through JSON: the route's own objects stay untouched, and TypeBox's non-enumerable marks drop.
  const part = (name: string) => (route.schema[name] ? (inlineRefs(JSON.parse(JSON.stringify(route.schema[name])), shared) as JsonSchema) : undefined);
  const headers = part('headers');
  const idempotencyKey = (headers?.properties as Record<string, JsonSchema> | undefined)?.['idempotency-key'];
  return {
    name: String(route.schema.operationId),
    title: String(route.schema.summary ?? route.schema.operationId),
    description: descriptionOf(route.schema),
    method: route.method,
    url: route.url,
    scope: route.scope,
    input: toolInput({ params: part('params'), querystring: part('querystring'), body: part('body'), bodyUse: route.bodyUse, idempotencyKey }),
  };
}

/**
 * Starts collecting the tool routes of `app`; call it before any route is registered. The answer
 * gives the operations once the app is ready (built on the first call: shared schemas and every
 * route are known by then).
 */
export function collectOperations(app: FastifyInstance): () => Operation[] {
  const routes: Route[] = [];
  app.addHook('onRoute', (r) => {
    const route = toolRoute(r);
    if (route) routes.push(route);
  });
  let operations: Operation[] | undefined;
  return () => (operations ??= routes.map((r) => operationOf(r, app.getSchemas())));
}
