import { describe, expect, it } from 'vitest';
import { integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { rowReader } from '../../src/platform/db/row-reader.ts';
import { day, int8, timestamptz3 } from '../../src/platform/db/tables.ts';
import { toDocumentRow } from '../../src/documents/snapshot.ts';

const sample = pgTable('sample', {
  id: text('id').primaryKey(),
  amount: int8('amount').notNull(),
  count: integer('print_count').notNull().default(0),
  on: day('on_day').notNull(),
  at: timestamptz3('created_at').notNull(),
  lines: jsonb('lines').$type<{ d: string }[]>().notNull().default([]),
  note: text('note'),
  lang: text('language').notNull().default('he'),
});

describe('rowReader', () => {
  const read = rowReader(sample);

  it('reads snake_case columns into the definition keys, typed', () => {
    const row = read({
      id: 's1',
      amount: '1234',
      print_count: 2,
      on_day: '2026-11-24',
      created_at: '2026-11-24 10:00:00.123+00',
      lines: '[{"d":"x"}]',
      note: null,
      language: 'en',
    });
    expect(row).toEqual({ id: 's1', amount: 1234, count: 2, on: '2026-11-24', at: '2026-11-24T10:00:00.123Z', lines: [{ d: 'x' }], note: null, lang: 'en' });
  });

  it('reads Date values of typed statements and parsed jsonb', () => {
    const row = read({
      id: 's2',
      amount: 5,
      print_count: 0,
      on_day: new Date(2026, 0, 31),
      created_at: new Date('2026-01-31T22:00:00Z'),
      lines: [],
      note: 'n',
    });
    expect(row.on).toBe('2026-01-31');
    expect(row.at).toBe('2026-01-31T22:00:00.000Z');
    expect(row.lines).toEqual([]);
  });

  it('gives a column the statement did not select its literal default, a fresh copy each time, else null', () => {
    const a = read({ id: 'a', amount: 1, on_day: '2026-01-01', created_at: '2026-01-01T00:00:00Z' });
    const b = read({ id: 'b', amount: 1, on_day: '2026-01-01', created_at: '2026-01-01T00:00:00Z' });
    expect(a).toMatchObject({ count: 0, lang: 'he', lines: [], note: null });
    a.lines.push({ d: 'changed' });
    expect(b.lines).toEqual([]);
  });

  it('reads a documents row by the documents table', () => {
    const row = toDocumentRow({
      id: 'doc_1',
      business_id: 'biz_1',
      status: 'issued',
      doc_type: 305,
      doc_number: '7',
      party: '{"name":"א"}',
      total_inc_vat: '11800',
      document_date: '2026-11-24',
      value_date: '2026-11-24',
      issued_at: '2026-11-24 08:00:00+00',
      created_at: new Date('2026-11-24T07:00:00Z'),
      updated_at: new Date('2026-11-24T08:00:00Z'),
      metadata: { k: 'v' },
      search_text: 'א',
    });
    expect(row).toMatchObject({ docNumber: 7, docType: 305, party: { name: 'א' }, totalIncVat: 11800, issuedAt: '2026-11-24T08:00:00.000Z' });
    expect(row).not.toHaveProperty('searchText');
    expect(row).toMatchObject({ currency: 'ILS', language: 'he', printCount: 0, warnings: [], allocation: null, metadata: { k: 'v' } });
  });
});
