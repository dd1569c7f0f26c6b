/**
 * A tool's input JSON Schema, made of its route's schemas: the path parameters and the query string
 * as top-level arguments, the JSON body under `body`, and `idempotencyKey` where the route takes
 * `Idempotency-Key`. Pure: the route's schema objects are copied, never changed.
 */

export type JsonSchema = Record<string, unknown>;

/** Where an argument goes in the HTTP request. */
export type ArgumentPlace = 'path' | 'query' | 'body' | 'header';

export const BODY_ARGUMENT = 'body';
export const IDEMPOTENCY_ARGUMENT = 'idempotencyKey';

export interface RouteInputs {
  params?: JsonSchema;
  querystring?: JsonSchema;
  body?: JsonSchema;
  /** How the route treats a request without a body. */
  bodyUse: 'none' | 'optional' | 'required';
  /** The route's own `idempotency-key` header schema, when it takes one. */
  idempotencyKey?: JsonSchema;
}

export interface ToolInput {
  schema: JsonSchema;
  /** Each argument's place in the request, by argument name. */
  places: Record<string, ArgumentPlace>;
}

const propertiesOf = (schema: JsonSchema | undefined) => (schema?.properties ?? {}) as Record<string, JsonSchema>;
const requiredOf = (schema: JsonSchema | undefined) => (schema?.required ?? []) as string[];

/**
 * Shared schemas (`$ref: 'Name'`, Fastify's `addSchema`) written in place: a tool's input schema
 * must stand alone, since an MCP client sees no `$defs` of ours. A circular reference is a
 * programming error (no request input is recursive).
 */
export function inlineRefs(node: unknown, shared: Record<string, unknown>, seen: readonly string[] = []): unknown {
  if (Array.isArray(node)) return node.map((n) => inlineRefs(n, shared, seen));
  if (!node || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as JsonSchema;
  if (typeof $ref === 'string') {
    const name = $ref.replace(/#$/, '');
    const target = shared[name];
    if (!target) throw new Error(`input schema refers to unknown shared schema "${$ref}"`);
    if (seen.includes(name)) throw new Error(`input schema refers to "${name}" within itself`);
    const { $id: _id, ...resolved } = inlineRefs(target, shared, [...seen, name]) as JsonSchema;
    return { ...resolved, ...(inlineRefs(rest, shared, seen) as JsonSchema) };
  }
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inlineRefs(v, shared, seen)]));
}

/** The tool's arguments: one flat object, each name in one place (a clash is a programming error). */
export function toolInput(route: RouteInputs): ToolInput {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const places: Record<string, ArgumentPlace> = {};
  const add = (name: string, place: ArgumentPlace, schema: JsonSchema, isRequired: boolean) => {
    if (places[name]) throw new Error(`argument "${name}" is both in ${places[name]} and ${place}`);
    places[name] = place;
    properties[name] = schema;
    if (isRequired) required.push(name);
  };
  for (const [name, schema] of Object.entries(propertiesOf(route.params))) add(name, 'path', schema, true);
  for (const [name, schema] of Object.entries(propertiesOf(route.querystring))) add(name, 'query', schema, requiredOf(route.querystring).includes(name));
  if (route.body && route.bodyUse !== 'none') {
    const described = { ...route.body, description: bodyDescription(route.body, route.bodyUse) };
    add(BODY_ARGUMENT, 'body', described, route.bodyUse === 'required');
  }
  if (route.idempotencyKey) add(IDEMPOTENCY_ARGUMENT, 'header', idempotencyKeySchema(route.idempotencyKey), false);
  return { schema: { type: 'object', properties, required, additionalProperties: false }, places };
}

function bodyDescription(body: JsonSchema, use: RouteInputs['bodyUse']): string {
  const own = typeof body.description === 'string' ? ` ${body.description}` : '';
  return use === 'optional' ? `The JSON request body; may be left out.${own}` : `The JSON request body.${own}`;
}

function idempotencyKeySchema(header: JsonSchema): JsonSchema {
  return {
    ...header,
    description:
      'Sent as the `Idempotency-Key` header. Pass a new unique value (e.g. a UUID or your own order id) for each thing you mean ' +
      `to create, and the same value when retrying it: a retry then answers the first result instead of creating it twice. ${String(header.description ?? '')}`.trim(),
  };
}
