import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_REASONS, reasonsByStatus } from '../../src/platform/http/openapi-reasons.ts';

// The OpenAPI enum of `Error.reason` (ERROR_REASONS) must hold every reason the code can write:
// every `new AppError(reason, …)` and `AppError.inCase(reason, …)` in src (its reason a literal, so
// the list stays closed), and the reasons the error handler maps a framework status to.

const SRC = path.resolve(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** The text of the call's arguments up to the n-th top-level comma (strings and nesting respected). */
function argument(text: string, from: number, n: number): string {
  let depth = 0;
  let quote: string | null = null;
  let index = 0;
  let start = from;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) {
      if (depth === 0) return index === n ? text.slice(start, i) : '';
      depth--;
    } else if (c === ',' && depth === 0) {
      if (index === n) return text.slice(start, i);
      index++;
      start = i + 1;
    }
  }
  return '';
}

function reasonsInSource(): { reasons: Map<string, string>; opaque: string[] } {
  const reasons = new Map<string, string>();
  const opaque: string[] = [];
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    const where = (i: number) => `${path.relative(SRC, file)}:${text.slice(0, i).split('\n').length}`;
    for (const m of text.matchAll(/new AppError\(|AppError\.inCase\(/g)) {
      const arg = argument(text, m.index + m[0].length, 0);
      // `cond ? 'a' : 'b'`: the reasons are the branches, not the condition.
      const expr = arg.includes('?') ? arg.slice(arg.indexOf('?') + 1) : arg;
      const literals = [...expr.matchAll(/'([a-z_]+)'/g)].map((x) => x[1]);
      if (literals.length === 0) opaque.push(`${where(m.index)}: ${arg.trim()}`);
      for (const r of literals) reasons.set(r, where(m.index));
    }
    // The reasons a framework's 4xx may be: `FRAMEWORK_REASONS … = ['unauthorized', …]`.
    if (file.endsWith(path.join('http', 'error-handler.ts'))) {
      const list = /FRAMEWORK_REASONS[^=]*=\s*\[([^\]]*)\]/.exec(text);
      expect(list).not.toBeNull();
      for (const m of list![1].matchAll(/'([a-z_]+)'/g)) reasons.set(m[1], where(list!.index));
    }
  }
  return { reasons, opaque };
}

describe('error reasons', () => {
  it('every reason the code writes is in the closed list of the OpenAPI document', () => {
    const { reasons, opaque } = reasonsInSource();
    expect(opaque).toEqual([]);
    expect(reasons.size).toBeGreaterThan(15);
    const missing = [...reasons].filter(([r]) => !(ERROR_REASONS as readonly string[]).includes(r)).map(([r, at]) => `${r} (${at})`);
    expect(missing).toEqual([]);
  });

  it('the list names no reason the code never writes', () => {
    const { reasons } = reasonsInSource();
    expect(ERROR_REASONS.filter((r) => !reasons.has(r))).toEqual([]);
  });
});

/** docs/foundation.md's table "| status | reasons |": each status with the reasons (in backticks, outside the row's remarks in parentheses). */
function documentedStatuses(): Map<number, string[]> {
  const text = readFileSync(path.resolve(SRC, '../docs/foundation.md'), 'utf8');
  const lines = text.split('\n');
  const head = lines.findIndex((l) => /^\|\s*status\s*\|\s*reasons\s*\|$/.test(l.trim()));
  expect(head).toBeGreaterThan(-1);
  const rows = new Map<number, string[]>();
  for (const line of lines.slice(head + 2)) {
    const m = /^\|\s*(\d{3})\s*\|(.*)\|\s*$/.exec(line.trim());
    if (!m) break;
    rows.set(
      Number(m[1]),
      [...m[2].replace(/\([^()]*\)/g, '').matchAll(/`([a-z_]+)`/g)].map((x) => x[1]),
    );
  }
  return rows;
}

describe('the status of each reason', () => {
  it("docs/foundation.md's status table is the code's (ERROR_STATUSES)", () => {
    const inCode = [...reasonsByStatus()].map(([status, rs]) => [status, rs.map((r) => r.reason).sort()] as const);
    const inDocs = [...documentedStatuses()].map(([status, rs]) => [status, [...rs].sort()] as const);
    const byStatus = (a: readonly [number, unknown], b: readonly [number, unknown]) => a[0] - b[0];
    expect(inDocs.sort(byStatus)).toEqual(inCode.sort(byStatus));
  });
});
