/**
 * Each table is written by its own domain only (issue 19): the folder whose tables.ts defines it
 * (src/platform/db/tables.ts: the platform's). Another domain calls that domain's function. This scans
 * the source for a write of a table and fails on one from elsewhere: INSERT INTO / UPDATE / DELETE FROM
 * naming the table or interpolating its definition (`${parties}`, or a local alias of it), the statement
 * builders over a definition (insertInto, insertText, updateSet), and drizzle's query builder
 * (`.insert(x)`, `.update(x)`, `.delete(x)`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const sources = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => f.split(path.sep).join('/'));
const folderOf = (file: string) => (file.includes('/') ? file.split('/')[0] : '(app)');

interface Owners {
  /** Table name → the folder that defines it. */
  byTable: Map<string, string>;
  /** The definition's variable (`parties`) → its table name (`parties`). */
  byDefinition: Map<string, string>;
}

function owners(): Owners {
  const byTable = new Map<string, string>();
  const byDefinition = new Map<string, string>();
  for (const file of sources.filter((f) => path.basename(f) === 'tables.ts')) {
    for (const m of readFileSync(path.join(SRC, file), 'utf8').matchAll(/export const (\w+) = pgTable\(\s*'([a-z0-9_]+)'/g)) {
      byTable.set(m[2], folderOf(file));
      byDefinition.set(m[1], m[2]);
    }
  }
  return { byTable, byDefinition };
}

const LITERAL_WRITE = /\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+([a-z0-9_]+)/g;
const INTERPOLATED_WRITE = /\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+\$\{(\w+)\}/g;
const BUILT_WRITE = /\b(?:insertInto|insertText|updateSet)\(\s*(\w+)\b/g;
const BUILDER_WRITE = /\.(?:insert|update|delete)\(\s*(\w+)\s*\)/g;

/** Every write of a known table outside its owner: `file:line table`. */
function foreignWrites(owner: Owners, files: { file: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { file, text } of files) {
    // A local name for a definition (`const t = parties;`) writes that table too.
    const aliases = new Map<string, string>();
    for (const m of text.matchAll(/\bconst (\w+) = (\w+);/g)) if (owner.byDefinition.has(m[2])) aliases.set(m[1], m[2]);
    const tableOfVariable = (name: string) => owner.byDefinition.get(aliases.get(name) ?? name);
    const writes: { index: number; table: string | undefined }[] = [
      ...[...text.matchAll(LITERAL_WRITE)].map((m) => ({ index: m.index, table: m[1] })),
      ...[...text.matchAll(INTERPOLATED_WRITE), ...text.matchAll(BUILT_WRITE), ...text.matchAll(BUILDER_WRITE)].map((m) => ({
        index: m.index,
        table: tableOfVariable(m[1]),
      })),
    ];
    for (const { index, table } of writes.sort((a, b) => a.index - b.index)) {
      if (table === undefined) continue;
      const tableOwner = owner.byTable.get(table);
      if (tableOwner !== undefined && tableOwner !== folderOf(file)) out.push(`${file}:${text.slice(0, index).split('\n').length} ${table} (${tableOwner}'s)`);
    }
  }
  return out;
}

describe('table owners', () => {
  it('finds the tables of the books and their owners', () => {
    const { byTable, byDefinition } = owners();
    expect(byTable.get('documents')).toBe('documents');
    expect(byTable.get('document_counters')).toBe('businesses');
    expect(byTable.get('outbox_events')).toBe('platform');
    expect(byDefinition.get('webhookEndpoints')).toBe('webhook_endpoints');
    expect(byTable.size).toBeGreaterThan(30);
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

  it("reports a write through another domain's definition: interpolated, an alias, a statement builder, drizzle's builder", () => {
    const files = [
      { file: 'console/a.ts', text: 'sql`DELETE FROM ${webhookEndpoints} WHERE id = ${id}`' },
      { file: 'console/b.ts', text: 'const t = parties;\nawait query(tx, sql`${updateSet(t, { name })} WHERE ${t.id} = ${id}`);' },
      { file: 'console/c.ts', text: 'await tx.execute(insertInto(documents, { id }));' },
      {
        file: 'console/d.ts',
        text: 'await tx\n  .insert(parties)\n  .values({ id });\nawait tx.update(webhookEndpoints).set({ url });\nawait ex.delete(apiRequests);',
      },
      { file: 'parties/service.ts', text: 'await tx.insert(parties).values({ id });\nsql`${updateSet(parties, { name })}`;' },
      { file: 'console/e.ts', text: 'const seen = new Set();\nseen.delete(id);\nmap.update(parties2);' },
    ];
    expect(foreignWrites(owners(), files)).toEqual([
      "console/a.ts:1 webhook_endpoints (webhooks's)",
      "console/b.ts:2 parties (parties's)",
      "console/c.ts:1 documents (documents's)",
      "console/d.ts:2 parties (parties's)",
      "console/d.ts:4 webhook_endpoints (webhooks's)",
      "console/d.ts:5 api_requests (request-log's)",
    ]);
  });
});
