/**
 * JSON with object keys sorted at every depth: the same value always gives the same text. It is the
 * text JSON.stringify gives the value with its keys sorted (toJSON applied, undefined and functions
 * left out of objects): one copy and one native stringify, no JSON round trip first.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return sortKeys((value as { toJSON(): unknown }).toJSON());
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}
