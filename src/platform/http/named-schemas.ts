/**
 * Named types in the OpenAPI document (issue 33): a route schema names a type by giving it a
 * `title` that is a type name (`Type.Object({...}, { title: 'Business' })`). The document then holds
 * it once under components/schemas and every place it appears refers to it, so generated clients
 * export `Business` instead of an anonymous shape per operation. The routes keep their schemas
 * inline: validation, serialization and handler types are unchanged.
 */

type Json = Record<string, any>;

/** A title that names a type (and not a human heading). */
const TYPE_NAME = /^[A-Z][A-Za-z0-9]*$/;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * Moves every titled schema of `doc`'s operations (and of the components themselves) into
 * components/schemas, replacing each occurrence with a $ref. Two different schemas with one title
 * are a mistake in the routes: refused, naming the title.
 */
export function hoistNamedSchemas(doc: Json): Json {
  const schemas: Json = (doc.components ??= {}).schemas ?? {};
  doc.components.schemas = schemas;
  const texts = new Map<string, string>();

  const visit = (node: unknown, atComponent?: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n));
    if (!node || typeof node !== 'object') return node;
    const o = node as Json;
    const name = typeof o.title === 'string' && TYPE_NAME.test(o.title) ? o.title : undefined;
    const walked: Json = {};
    for (const [k, v] of Object.entries(o)) walked[k] = visit(v);
    if (!name || name === atComponent) return walked;
    const text = JSON.stringify(walked);
    const seen = texts.get(name);
    if (seen === undefined) {
      texts.set(name, text);
      schemas[name] = walked;
    } else if (seen !== text) {
      throw new Error(`OpenAPI: two different schemas are titled ${name}`);
    }
    return ref(name);
  };

  for (const [name, schema] of Object.entries<Json>({ ...schemas })) schemas[name] = visit(schema, name);
  doc.paths = visit(doc.paths ?? {});
  return doc;
}
