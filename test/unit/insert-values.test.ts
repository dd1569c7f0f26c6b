import { describe, expect, it } from 'vitest';
import { PgDialect } from 'drizzle-orm/pg-core';
import { insertInto } from '../../src/platform/db/insert-values.ts';
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
