/**
 * What the API refuses at the door, whatever the route: the input classes that no route schema
 * describes and that would otherwise fail deep inside (PostgreSQL, a PDF, an export) as a 500.
 *
 * - Text PostgreSQL cannot store: NUL (U+0000) is refused by `text` and `jsonb`; an unpaired UTF-16
 *   surrogate (JSON `"\ud800"`) has no UTF-8 form (it would be stored as U+FFFD, silently changed,
 *   or refused by `jsonb` as an unsupported escape). Both are a 400 `validation` naming the field,
 *   in JSON bodies at any depth (values and field names), query strings and path parameters.
 * - JSON bodies: UTF-8 only (invalid bytes are refused, not replaced by U+FFFD); nested at most
 *   JSON_LIMITS.depth levels; arrays of at most JSON_LIMITS.items items; every field name once per
 *   object (a duplicate key is refused naming it: which of two values wins must never surprise a
 *   tax integrator); no `__proto__` field name.
 * - Numbers: every number a body carries, and every number a query string is coerced to, is finite
 *   and within ±(2^53 − 1), where a JSON number still means one exact value (1e309 is Infinity,
 *   9007199254740993 reads as …992). `-0` is read as 0.
 */
import { isUtf8 } from 'node:buffer';
import { validation } from '../errors.ts';

export const JSON_LIMITS = { depth: 32, items: 10_000 } as const;

// NUL, a high surrogate not followed by a low one, a low surrogate not preceded by a high one.
const BAD_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What is wrong with a text value for storage, or null when it is fine. */
export function textProblem(s: string): string | null {
  const m = BAD_TEXT.exec(s);
  if (!m) return null;
  return m[0] === '\u0000' ? 'must not contain NUL characters (U+0000)' : 'must not contain an unpaired UTF-16 surrogate (it is not valid Unicode text)';
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** What is wrong with a number the API was given, or null. */
export function numberProblem(n: number): string | null {
  if (!Number.isFinite(n) || Math.abs(n) > SAFE) return `must be a number between -${SAFE} and ${SAFE}`;
  return null;
}

const PLAIN_KEY = /^[A-Za-z0-9_$-]+$/;

/** `body` + `lines` + 0 → `body.lines[0]`; a key that is not plain is quoted: `body["a b"]`. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return PLAIN_KEY.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

function keyProblem(path: string, key: string): void {
  const p = textProblem(key);
  if (p) throw validation(childPath(path, key), `the field name ${p}`);
}

const pathFrom = (root: string, segments: (string | number)[]) => segments.reduce<string>((out, s) => childPath(out, s), root);

/**
 * Checks (and normalises `-0`) every string, field name and number of a parsed JSON value. The
 * path is kept as segments and spelled out only for an error: most bodies have none.
 */
function checkValue(v: unknown, root: string, at: (string | number)[]): unknown {
  if (typeof v === 'string') {
    const p = textProblem(v);
    if (p) throw validation(pathFrom(root, at), p);
    return v;
  }
  if (typeof v === 'number') {
    if (Object.is(v, -0)) return 0;
    const p = numberProblem(v);
    if (p) throw validation(pathFrom(root, at), p);
    return v;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      at.push(i);
      v[i] = checkValue(v[i], root, at);
      at.pop();
    }
    return v;
  }
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (BAD_TEXT.test(k)) keyProblem(pathFrom(root, at), k);
      at.push(k);
      o[k] = checkValue(o[k], root, at);
      at.pop();
    }
  }
  return v;
}

/** Index of the quote closing the JSON string that opens at `start` (the text is valid JSON). */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const k = text.indexOf('"', from);
    let backslashes = 0;
    for (let p = k - 1; text.charCodeAt(p) === 92; p--) backslashes++;
    if (backslashes % 2 === 0) return k;
    from = k + 1;
  }
}

interface Frame {
  object: boolean;
  keys: Set<string> | null;
  /** The current member: a field name or an array index. */
  child: string | number;
  expectKey: boolean;
}

function pathOf(stack: Frame[], upTo: number): string {
  let out = 'body';
  for (let i = 0; i < upTo; i++) out = childPath(out, stack[i].child);
  return out;
}

/**
 * One pass over valid JSON text, outside its strings: nesting depth, array lengths, and field names
 * (duplicates, `__proto__`). Runs on the text because JSON.parse keeps the last of duplicate keys
 * without a word.
 */
function checkStructure(text: string): void {
  const stack: Frame[] = [];
  const token = /["{}[\],]/g;
  let m: RegExpExecArray | null;
  while ((m = token.exec(text))) {
    const top = stack[stack.length - 1];
    switch (m[0]) {
      case '"': {
        const end = stringEnd(text, m.index);
        if (top?.object && top.expectKey) {
          const raw = text.slice(m.index + 1, end);
          const key = raw.includes('\\') ? (JSON.parse(text.slice(m.index, end + 1)) as string) : raw;
          const at = () => childPath(pathOf(stack, stack.length - 1), key);
          if (key === '__proto__') throw validation(at(), 'this field name is not allowed');
          if (top.keys!.has(key)) throw validation(at(), 'appears more than once in the object; send each field once');
          top.keys!.add(key);
          top.child = key;
          top.expectKey = false;
        }
        token.lastIndex = end + 1;
        break;
      }
      case '{':
      case '[':
        if (stack.length >= JSON_LIMITS.depth) {
          throw validation(pathOf(stack, stack.length), `is nested more than ${JSON_LIMITS.depth} levels deep`);
        }
        stack.push(m[0] === '{' ? { object: true, keys: new Set(), child: '', expectKey: true } : { object: false, keys: null, child: 0, expectKey: false });
        break;
      case '}':
      case ']':
        stack.pop();
        break;
      case ',':
        if (top.object) top.expectKey = true;
        else if ((top.child = (top.child as number) + 1) >= JSON_LIMITS.items) {
          throw validation(pathOf(stack, stack.length - 1), `must have at most ${JSON_LIMITS.items} items`);
        }
        break;
    }
  }
}

/** A JSON object (not null, not an array): how a part read before or without its schema is looked into. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The body of an `application/json` request: undefined when empty (a POST with no options), else
 * the parsed value after every check above; each refusal is a 400 `validation` naming the field.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (!isUtf8(raw)) throw validation('body', 'is not valid UTF-8; JSON bodies are UTF-8');
  let text = raw.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw validation('body', 'malformed JSON');
  }
  checkStructure(text);
  return checkValue(value, 'body', []);
}

/** Query strings, path parameters, form bodies (strings, arrays of strings, their names): the text checks. */
export function checkRequestText(value: unknown, part: 'querystring' | 'params' | 'body'): void {
  if (value === null || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    keyProblem(part, k);
    const path = childPath(part, k);
    for (const s of Array.isArray(v) ? v : [v]) {
      if (typeof s !== 'string') continue;
      const p = textProblem(s);
      if (p) throw validation(path, p);
    }
  }
}

/** An ajv-shaped error for the first number of a (coerced) query or params object that is out of range. */
export function unsafeNumber(value: unknown): { instancePath: string; keyword: string; message: string; params: Record<string, unknown> } | null {
  if (value === null || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    for (const n of Array.isArray(v) ? v : [v]) {
      if (typeof n !== 'number') continue;
      const message = numberProblem(n);
      if (message) return { instancePath: `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, keyword: 'safeNumber', message, params: {} };
    }
  }
  return null;
}

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * For text that does not come from the caller but from an upstream (a model's answer, a remote
 * server's): it cannot be refused back to its author, so what PostgreSQL cannot store is dropped
 * (NUL) or replaced (an unpaired surrogate → U+FFFD), in every string and field name of a value.
 */
export function storableCopy(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(UNSTORABLE, (c) => (c === '\u0000' ? '' : '\ufffd'));
  if (Array.isArray(v)) return v.map(storableCopy);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [storableCopy(k) as string, storableCopy(x)]));
  }
  return v;
}
