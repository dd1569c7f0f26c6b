/**
 * Reads the shell of docs/integrate.md: the small dialect the guide is written in (assignments,
 * `curl` with -s/-S/-f/-i, -X, -H, -d, -o, an optional `| jq [-r] .path`, `VAR=$(…)`,
 * `until …; do sleep N; done`, and `# → STATUS [reason | Header: value]` expectations). Anything
 * else is refused, so the guide cannot hold a command the checker silently skips.
 */

export type Vars = Map<string, string | string[]>;

export type Step =
  | { kind: 'skip'; text: string }
  | { kind: 'set'; name: string; value: string | string[] }
  | { kind: 'curl'; text: string; capture?: string; poll: boolean; curl: Curl; jq?: string; expect?: Expectation };

export interface Curl {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  output?: string;
  failOnError: boolean;
}

export interface Expectation {
  status: number;
  reason?: string;
  header?: [string, string];
}

/** The bodies of the ```sh blocks, in order. */
export function shellBlocks(md: string): string[] {
  return [...md.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** Lines of a block joined at trailing backslashes; blank lines and whole-line comments dropped. */
export function commandLines(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

const ARRAY_SEP = '\u0000';

/** Shell words of `text` with $VAR, ${VAR} and "${VAR[@]}" expanded; stops at an unquoted `|` or `#`. */
export function words(text: string, vars: Vars): { words: string[]; rest: string } {
  const out: string[] = [];
  let word: string | undefined;
  let i = 0;
  const lookup = (name: string, array: boolean) => {
    const v = vars.get(name);
    if (v === undefined) throw new Error(`$${name} is used before it is set`);
    if (Array.isArray(v) !== array) throw new Error(`$${name} is ${Array.isArray(v) ? 'an array' : 'not an array'}`);
    return Array.isArray(v) ? v.join(ARRAY_SEP) : v;
  };
  const expand = (): string => {
    const m = /^\$(?:\{([A-Za-z_]\w*)(\[@\])?\}|([A-Za-z_]\w*))/.exec(text.slice(i));
    if (!m) throw new Error(`cannot read "${text.slice(i, i + 20)}"`);
    i += m[0].length;
    return lookup(m[1] ?? m[3], Boolean(m[2]));
  };
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t') {
      if (word !== undefined) out.push(word);
      word = undefined;
      i++;
    } else if ((c === '|' || c === '#') && word === undefined) {
      break;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error('unclosed quote');
      word = (word ?? '') + text.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      word ??= '';
      i++;
      while (text[i] !== '"') {
        if (i >= text.length) throw new Error('unclosed double quote');
        if (text[i] === '$') word += expand();
        else if (text[i] === '\\' && '"\\$'.includes(text[i + 1])) ((word += text[i + 1]), (i += 2));
        else word += text[i++];
      }
      i++;
    } else if (c === '$') {
      word = (word ?? '') + expand();
    } else if ('();&<>`\\'.includes(c)) {
      throw new Error(`unsupported shell character ${c}`);
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  if (word !== undefined) out.push(word);
  return { words: out.flatMap((w) => w.split(ARRAY_SEP)), rest: text.slice(i).trim() };
}

function parseCurl(args: string[]): Curl {
  if (args[0] !== 'curl') throw new Error(`not a curl command: ${args[0]}`);
  const curl: Curl = { method: '', url: '', headers: {}, failOnError: false };
  for (let i = 1; i < args.length; i++) {
    const a = args[i];
    if (/^-[sSfi]+$/.test(a)) curl.failOnError ||= a.includes('f');
    else if (a === '-X') curl.method = args[++i];
    else if (a === '-H') {
      const [name, ...value] = args[++i].split(':');
      curl.headers[name.trim()] = value.join(':').trim();
    } else if (a === '-d') curl.body = args[++i];
    else if (a === '-o') curl.output = args[++i];
    else if (a.startsWith('-')) throw new Error(`unsupported curl option ${a}`);
    else if (curl.url) throw new Error(`two URLs: ${curl.url} and ${a}`);
    else curl.url = a;
  }
  if (!curl.url) throw new Error('curl without a URL');
  curl.method ||= curl.body === undefined ? 'GET' : 'POST';
  return curl;
}

function parseExpectation(comment: string): Expectation | undefined {
  if (!comment) return undefined;
  const m = /^#\s*→\s*(\d{3})(?:\s+([a-z_]+)|\s+([A-Za-z-]+):\s*(\S+))?\s*$/.exec(comment);
  if (!m) throw new Error(`cannot read the expectation "${comment}"`);
  return { status: Number(m[1]), reason: m[2], header: m[3] ? [m[3], m[4]] : undefined };
}

/** A curl command with its optional `| jq` filter and expectation comment. */
function curlStep(text: string, vars: Vars, extra: { capture?: string; poll: boolean }): Step {
  const { words: args, rest } = words(text, vars);
  let jq: string | undefined;
  let comment = rest;
  const pipe = /^\|\s*jq\s+(?:-r\s+)?(\.[A-Za-z0-9_.]+)\s*(.*)$/.exec(rest);
  if (rest.startsWith('|')) {
    if (!pipe) throw new Error(`unsupported pipe "${rest}"`);
    jq = pipe[1];
    comment = pipe[2];
  }
  return { kind: 'curl', text, ...extra, curl: parseCurl(args), jq, expect: parseExpectation(comment.trim()) };
}

/** One command line as a step; `vars` must hold what earlier steps set (the caller updates it). */
export function parseStep(line: string, vars: Vars): Step {
  if (/^npm install && (\w+=\S+ )*npm start$/.test(line)) return { kind: 'skip', text: line };
  let m = /^([A-Z_]+)=\$\((.*)\)$/.exec(line);
  if (m) return curlStep(m[2], vars, { capture: m[1], poll: false });
  m = /^([A-Z_]+)=\((.*)\)$/.exec(line);
  if (m) return { kind: 'set', name: m[1], value: [...words(m[2], vars).words] };
  m = /^([A-Z_]+)=(\S+)(\s+#.*)?$/.exec(line);
  if (m) return { kind: 'set', name: m[1], value: words(m[2], vars).words.join('') };
  m = /^until (.*); do sleep \d+; done$/.exec(line);
  if (m) return curlStep(m[1], vars, { poll: true });
  return curlStep(line, vars, { poll: false });
}

/** `.a.b` of a JSON value (undefined when a step is missing). */
export function jqPath(value: unknown, path: string): unknown {
  return path
    .split('.')
    .filter(Boolean)
    .reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), value);
}
