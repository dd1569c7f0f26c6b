/**
 * The compilers that turn route schemas into request validators (Ajv) and response serializers
 * (fast-json-stringify). A compiled function is kept per schema text for the life of the process, so an
 * app built again in the same process (the test suite builds hundreds, one per test environment) reuses
 * them: compiling every route's ~800 schemas costs ~0.5 s of CPU per app. Keyed by text, not by object:
 * most route schemas are built when the routes are registered (an error answer per status), so each app
 * has objects of its own. A server builds one app, where this changes nothing; the maps hold one entry per
 * distinct schema, a few hundred.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaValidationError } from 'fastify';
import { unsafeNumber } from './input.ts';

export type SchemaValidator = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

function ajv(coerce: boolean) {
  // Bodies are strict (a string is never silently turned into a number); queries and params are coerced.
  const instance = new Ajv({
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    allErrors: false,
    // Errors carry the schema that failed, so messages can say what is allowed (error-handler.ts).
    verbose: true,
    strict: false,
  });
  (addFormats as unknown as (a: Ajv) => void)(instance);
  return instance;
}

const bodyAjv = ajv(false);
const queryAjv = ajv(true);
const bodyValidators = new Map<string, SchemaValidator>();
const otherValidators = new Map<string, SchemaValidator>();

/** Compiles with `instance` and lets Ajv forget the schema: the maps above are the cache. */
function compiled(instance: Ajv, schema: object) {
  const validate = instance.compile(schema);
  instance.removeSchema(schema);
  return validate;
}

/** Query strings and params are coerced: each coerced number must be finite and exact as well. */
function coercedValidator(schema: object): SchemaValidator {
  // "1e309" becomes Infinity and "1e20" a number past 2^53, which `type: integer` lets through.
  const validate = compiled(queryAjv, schema);
  const checked = (data: unknown, ctx?: unknown) => {
    const ok = (validate as (d: unknown, c?: unknown) => boolean)(data, ctx);
    checked.errors = validate.errors as FastifySchemaValidationError[] | null | undefined;
    if (!ok) return false;
    const bad = unsafeNumber(data);
    if (bad) checked.errors = [bad as FastifySchemaValidationError];
    return !bad;
  };
  checked.errors = undefined as FastifySchemaValidationError[] | null | undefined;
  // Fastify passes the parent (the request) to a function that has it, so that coercion can replace a root value.
  checked.schemaEnv = (validate as unknown as { schemaEnv: unknown }).schemaEnv;
  return checked;
}

/** Fastify's validator compiler: bodies strict, queries and params coerced (then checked finite and exact). */
export function validatorCompiler({ schema, httpPart }: { schema: object; httpPart?: string }): SchemaValidator {
  const body = httpPart === 'body';
  const cache = body ? bodyValidators : otherValidators;
  const text = JSON.stringify(schema);
  let validate = cache.get(text);
  if (!validate) {
    validate = body ? (compiled(bodyAjv, schema) as SchemaValidator) : coercedValidator(schema);
    cache.set(text, validate);
  }
  return validate;
}

type Serialize = (data: unknown) => string;
const fastJsonStringify = SerializerSelector();
/** Per set of shared schemas (`addSchema`: Fastify copies them per app), per schema. */
const serializers = new Map<string, Map<string, Serialize>>();

/** Fastify's serializer factory: fast-json-stringify's, compiled once per schema and set of shared schemas. */
export function buildSerializer(externalSchemas: Record<string, unknown> | undefined, options: Parameters<typeof fastJsonStringify>[1]) {
  const compile = fastJsonStringify(externalSchemas, options);
  const shared = JSON.stringify(externalSchemas ?? {});
  let bySchema = serializers.get(shared);
  if (!bySchema) serializers.set(shared, (bySchema = new Map()));
  const compiledHere = bySchema;
  return (route: { schema: object }): Serialize => {
    const text = JSON.stringify(route.schema);
    let serialize = compiledHere.get(text);
    if (!serialize) compiledHere.set(text, (serialize = compile(route as never) as Serialize));
    return serialize;
  };
}
