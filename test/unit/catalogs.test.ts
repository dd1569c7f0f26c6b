import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '../../src/platform/catalog/audit-actions.ts';
import { EVENTS, EVENT_NAMES } from '../../src/platform/catalog/events.ts';
import { JOBS, JOB_KINDS } from '../../src/platform/catalog/jobs.ts';
import { SCOPES, DEFAULT_SCOPES, isScope } from '../../src/platform/catalog/scopes.ts';
import { allJobHandlers, domains } from '../../src/domains.ts';
import { createServices } from '../../src/services.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import type { Database, Mode } from '../../src/platform/db/engine.ts';
import type { Services } from '../../src/platform/http/services.ts';
import { serviceOpenapiDocument } from '../../packages/sdk/scripts/openapi-document.ts';

// The catalogs of names (src/platform/catalog): the type system keeps call sites inside them; this
// file checks what types cannot — no duplicates, no dead entries, one handler per job, a sane retry
// policy, and that the OpenAPI document and docs/webhooks.md say the same as the catalogs. The scan
// of the sources is a second line behind the types (it also sees names built in template strings).

const ROOT = path.resolve(import.meta.dirname, '../..');
const CATALOG_DIR = path.join(ROOT, 'src/platform/catalog');

/** Every .ts file under src/ except the catalogs themselves: path → text. */
function sources(): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile() && file.endsWith('.ts') && !file.startsWith(CATALOG_DIR)) out.set(path.relative(ROOT, file), readFileSync(file, 'utf8'));
  }
  return out;
}
const SRC = sources();

/** Captures of `pattern` (group 1) over every source, with where each was found. */
function captures(pattern: RegExp): { name: string; where: string }[] {
  const found: { name: string; where: string }[] = [];
  for (const [file, text] of SRC) for (const m of text.matchAll(pattern)) found.push({ name: m[1]!, where: file });
  return found;
}

const notIn = (list: readonly string[], found: { name: string; where: string }[]) =>
  found.filter((f) => !list.includes(f.name)).map((f) => `${f.name} (${f.where})`);
const duplicates = (list: readonly string[]) => list.filter((x, i) => list.indexOf(x) !== i);
const NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

describe('event catalog', () => {
  it('names every event the sources emit, and each name is emitted somewhere', () => {
    const emitted = captures(/\bevent: '([^']+)'/g);
    expect(emitted.length).toBeGreaterThanOrEqual(EVENT_NAMES.length);
    expect(notIn(EVENT_NAMES, emitted)).toEqual([]);
    expect(EVENT_NAMES.filter((e) => !emitted.some((f) => f.name === e))).toEqual([]);
  });

  it('has well-formed names, each with an object `data` schema and a description', () => {
    for (const name of EVENT_NAMES) {
      expect(name).toMatch(NAME);
      expect(EVENTS[name].data.type, name).toBe('object');
      expect(EVENTS[name].description.length, name).toBeGreaterThan(10);
    }
  });

  it('is the events table of docs/webhooks.md, row by row', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/webhooks.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z_.]+)` \| (.+?) \| (.+?) \|$/gm)].map((m) => [m[1], m[2], m[3]]);
    const expected = EVENT_NAMES.map((name) => [
      name,
      EVENTS[name].description,
      Object.keys(EVENTS[name].data.properties)
        .map((k) => `\`${k}\``)
        .join(', '),
    ]);
    expect(rows).toEqual(expected);
  });
});

describe('job catalog', () => {
  it('names every job the sources enqueue, and each job is enqueued somewhere', () => {
    const literal = captures(/\bkind: '([a-z0-9_]+\.[a-z0-9_.]+)'/g);
    const constants = captures(/= '([^']+)' satisfies JobKind/g);
    expect(notIn(JOB_KINDS, [...literal, ...constants])).toEqual([]);
    expect(JOB_KINDS.filter((k) => !literal.some((f) => f.name === k))).toEqual([]);
    for (const kind of JOB_KINDS) expect(kind).toMatch(NAME);
  });

  it('gives every job a retry policy that ends and grows', () => {
    for (const kind of JOB_KINDS) {
      const { maxAttempts, delaysMs } = JOBS[kind].retry;
      expect(Number.isInteger(maxAttempts) && maxAttempts >= 1, kind).toBe(true);
      expect(delaysMs.length, kind).toBe(maxAttempts - 1);
      expect(delaysMs[0], kind).toBeGreaterThan(0);
      expect(
        delaysMs.every((d, i) => i === 0 || d >= delaysMs[i - 1]!),
        kind,
      ).toBe(true);
    }
  });

  describe('handlers', () => {
    let s: Services;
    let databases: Record<Mode, Database>;
    beforeAll(() => {
      databases = { live: unconnectedDatabase('live'), sandbox: unconnectedDatabase('sandbox') };
      s = createServices(loadConfig({ PINKAS_ENV: 'test', LOG_LEVEL: 'silent' }), new ManualClock(), createLogger('silent'), databases);
    });
    afterAll(async () => Promise.all([databases.live.close(), databases.sandbox.close()]));

    it('has exactly one handler for every job, across all domains', () => {
      const owners = new Map<string, string[]>();
      for (const d of domains) for (const kind of Object.keys(d.jobs?.(s) ?? {})) owners.set(kind, [...(owners.get(kind) ?? []), d.name]);
      expect([...owners.keys()].sort()).toEqual([...JOB_KINDS].sort());
      for (const [kind, names] of owners) expect(names, kind).toHaveLength(1);
      const handlers = allJobHandlers(s);
      expect(Object.keys(handlers).sort()).toEqual([...JOB_KINDS].sort());
      for (const kind of JOB_KINDS) expect(typeof handlers[kind].handle, kind).toBe('function');
    });

    it('refuses at start a job with two handlers', () => {
      const first = domains.find((d) => d.jobs)!;
      domains.push({ name: 'twice', jobs: first.jobs });
      try {
        expect(() => allJobHandlers(s)).toThrow(/has two handlers \(domain twice/);
      } finally {
        domains.pop();
      }
    });
  });
});

describe('audit action catalog', () => {
  // `action: 'x.y'` (or `cond ? 'x.y' : 'x.z'`), a template `x.${…}`, or an argument of afterIssue.
  const actionLines = captures(/\baction: ([^\n]+)/g);
  const literals = actionLines.flatMap((l) => [...l.name.matchAll(/'([a-z0-9_]+(?:\.[a-z0-9_]+)+)'/g)].map((m) => ({ name: m[1]!, where: l.where })));
  const templates = actionLines.flatMap((l) => [...l.name.matchAll(/`([a-z_.]+)\$\{/g)].map((m) => m[1]!));
  const issueActions = captures(/afterIssue\([^)]*'([a-z0-9_]+\.[a-z0-9_]+)'/g);

  it('names every action the sources record, and each action is recorded somewhere', () => {
    expect(literals.length).toBeGreaterThan(30);
    expect(notIn(AUDIT_ACTIONS, [...literals, ...issueActions])).toEqual([]);
    for (const prefix of templates)
      expect(
        AUDIT_ACTIONS.some((a) => a.startsWith(prefix)),
        prefix,
      ).toBe(true);
    const used = (a: string) => literals.some((f) => f.name === a) || issueActions.some((f) => f.name === a) || templates.some((p) => a.startsWith(p));
    expect(AUDIT_ACTIONS.filter((a) => !used(a))).toEqual([]);
  });

  it('lists each action once, well formed', () => {
    expect(duplicates(AUDIT_ACTIONS)).toEqual([]);
    for (const a of AUDIT_ACTIONS) expect(a).toMatch(NAME);
  });
});

describe('scope catalog', () => {
  it('is the only source of the scopes routes need, and defaults are among them', () => {
    const needed = captures(/\{ scope: '([a-z_]+)'/g);
    expect(needed.length).toBeGreaterThan(5);
    expect(notIn(SCOPES, needed)).toEqual([]);
    expect(SCOPES.filter((sc) => !needed.some((f) => f.name === sc))).toEqual([]);
    expect(DEFAULT_SCOPES.every(isScope)).toBe(true);
    expect(isScope('admin')).toBe(false);
    expect(isScope('toString')).toBe(false);
  });
});

describe('the OpenAPI document', () => {
  let enums: { where: string; values: string[] }[];
  beforeAll(async () => {
    enums = [];
    const walk = (v: unknown, where: string): void => {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}/${i}`));
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === 'enum' && Array.isArray(x)) enums.push({ where, values: x.map(String) });
          walk(x, `${where}/${k}`);
        }
      }
    };
    walk(await serviceOpenapiDocument(), '');
  }, 60_000);

  // The catalogs overlap (two audit actions are also events; `export` is a scope and a VAT
  // exemption reason): an enum belongs to the catalog it shares the most values with, at least two.
  const CATALOGS = { events: EVENT_NAMES, scopes: SCOPES, auditActions: AUDIT_ACTIONS, jobs: JOB_KINDS } as const;
  const of = (name: keyof typeof CATALOGS) =>
    enums.filter((e) => {
      const shared = (c: readonly string[]) => e.values.filter((v) => c.includes(v)).length;
      const best = Object.entries(CATALOGS).sort(([, x], [, y]) => shared(y) - shared(x))[0]!;
      return best[0] === name && shared(best[1]) >= 2;
    });

  it('takes its event enums from the event catalog', () => {
    expect(of('events').length).toBeGreaterThanOrEqual(4);
    for (const e of of('events')) expect(e.values, e.where).toEqual(EVENT_NAMES);
  });

  it('takes its scope enums from the scope catalog', () => {
    expect(of('scopes').length).toBeGreaterThanOrEqual(1);
    for (const e of of('scopes')) expect(e.values, e.where).toEqual(SCOPES);
  });

  it('has no enum of audit actions or job kinds other than the whole catalog', () => {
    for (const e of [...of('auditActions'), ...of('jobs')])
      expect(e.values, e.where).toEqual(e.values.some((v) => AUDIT_ACTIONS.includes(v as never)) ? AUDIT_ACTIONS : JOB_KINDS);
  });
});

function unconnectedDatabase(mode: Mode): Database {
  // Port 1 answers nothing: handlers are only built here, never run.
  const pool = new pg.Pool({ connectionString: 'postgres://unused@127.0.0.1:1/unused', max: 1 });
  pool.on('error', () => {});
  return { mode, kind: 'server', db: drizzle(pool), pool, close: () => pool.end() };
}
