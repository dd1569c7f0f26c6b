import { describe, expect, it } from 'vitest';
import { PgDialect } from 'drizzle-orm/pg-core';
import { insertInto, insertText } from '../../src/platform/db/insert-values.ts';
import { documents } from '../../src/documents/tables.ts';

const dialect = new PgDialect();

describe('insertInto', () => {
  it('names the columns of the definition and writes jsonb as JSON text, instants as ISO text', () => {
    const at = new Date('2026-11-24T10:00:00.123Z');
    const q = dialect.sqlToQuery(insertInto(documents, { id: 'doc_1', businessId: 'biz_1', party: null, lines: [], createdAt: at, note: undefined }));
    expect(q.sql).toBe('INSERT INTO "documents" ("id", "business_id", "party", "lines", "created_at") VALUES ($1, $2, $3::jsonb, $4::jsonb, $5)');
    expect(q.params).toEqual(['doc_1', 'biz_1', 'null', '[]', '2026-11-24T10:00:00.123Z']);
  });

  it('refuses a key the definition does not have', () => {
    expect(() => insertInto(documents, { nope: 1 } as never)).toThrow(/nope is not a column/);
  });
});

describe('insertText', () => {
  const at = new Date('2026-11-24T10:00:00.123Z');
  const party = { partyId: null, key: null, name: 'א', taxId: null, phone: null, email: null, address: null };
  const values = { id: 'doc_1', businessId: 'biz_1', party, lines: [], metadata: {}, createdAt: at, note: undefined };

  it('is the statement insertInto composes, with the same values', () => {
    const composed = dialect.sqlToQuery(insertInto(documents, values));
    expect(insertText(documents, values)).toEqual({ text: composed.sql, params: composed.params });
  });

  it('numbers its placeholders from the one given, for a statement that has others before them', () => {
    const q = insertText(documents, values, 3);
    expect(q.text).toBe(
      'INSERT INTO "documents" ("id", "business_id", "party", "lines", "metadata", "created_at") VALUES ($3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8)',
    );
    expect(q.params).toEqual(['doc_1', 'biz_1', JSON.stringify(party), '[]', '{}', '2026-11-24T10:00:00.123Z']);
  });

  it('keeps one text per set of columns: another set gets its own, the same set answers new values', () => {
    expect(insertText(documents, { id: 'a', note: 'x' }).text).toBe('INSERT INTO "documents" ("id", "note") VALUES ($1, $2)');
    expect(insertText(documents, { id: 'b', note: 'y' }).params).toEqual(['b', 'y']);
    expect(insertText(documents, { id: 'c' }).text).toBe('INSERT INTO "documents" ("id") VALUES ($1)');
  });
});
