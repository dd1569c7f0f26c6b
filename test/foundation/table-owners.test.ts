/**
 * Each table is written by its own domain only (issue 19): the folder whose tables.ts defines it
 * (src/platform/db/tables.ts: the platform's). Another domain calls that domain's function. This scans
 * the source for INSERT INTO / UPDATE / DELETE FROM of a table and fails on a write from elsewhere.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const sources = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => f.split(path.sep).join('/'));
const folderOf = (file: string) => (file.includes('/') ? file.split('/')[0] : '(app)');

/** Table name → the folder that defines it. */
function owners(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of sources.filter((f) => path.basename(f) === 'tables.ts')) {
    for (const m of readFileSync(path.join(SRC, file), 'utf8').matchAll(/pgTable\(\s*'([a-z0-9_]+)'/g)) found.set(m[1], folderOf(file));
  }
  return found;
}

/** Every write of a known table outside its owner: `file:line table`. */
function foreignWrites(owner: Map<string, string>, files: { file: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { file, text } of files) {
    for (const m of text.matchAll(/\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+([a-z0-9_]+)/g)) {
      const table = m[1];
      if (owner.has(table) && owner.get(table) !== folderOf(file))
        out.push(`${file}:${text.slice(0, m.index).split('\n').length} ${table} (${owner.get(table)}'s)`);
    }
  }
  return out;
}

describe('table owners', () => {
  it('finds the tables of the books and their owners', () => {
    const owner = owners();
    expect(owner.get('documents')).toBe('documents');
    expect(owner.get('document_counters')).toBe('businesses');
    expect(owner.get('outbox_events')).toBe('platform');
    expect(owner.size).toBeGreaterThan(30);
  });

  it('writes each table only from the domain that defines it', () => {
    const files = sources.map((file) => ({ file, text: readFileSync(path.join(SRC, file), 'utf8') }));
    expect(foreignWrites(owners(), files)).toEqual([]);
  });

  it('reports a write from another domain, and not one from the owner', () => {
    const files = [
      { file: 'prints/handout.ts', text: 'const a = 1;\nsql`UPDATE documents SET print_count = 1`' },
      { file: 'documents/print-writes.ts', text: 'sql`UPDATE documents SET print_count = 1`' },
    ];
    expect(foreignWrites(owners(), files)).toEqual(["prints/handout.ts:2 documents (documents's)"]);
  });
});
