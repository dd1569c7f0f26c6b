/**
 * `INSERT INTO table (columns) VALUES (...)` from an object keyed by a drizzle table definition's
 * keys (issue 19): the definition names the columns and TypeScript checks the keys and value types,
 * so a statement keeps no column list by hand, and it still composes into a larger statement (a CTE,
 * `ON CONFLICT`, `RETURNING`). jsonb values are written as their JSON text (`null` → JSON null, as
 * `JSON.stringify` writes it); instants may be given as Date or ISO 8601 text.
 */
import { getTableColumns, sql, type SQL, type SQLChunk, type Table } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';

/** What a statement may give a column: the definition's insert type, instants also as ISO text. */
export type InsertValues<T extends Table> = {
  [K in keyof T['$inferInsert']]?: T['$inferInsert'][K] extends Date | null | undefined ? T['$inferInsert'][K] | string : T['$inferInsert'][K];
};

export function insertInto<T extends Table>(table: T, values: InsertValues<T>): SQL {
  const columns = getTableColumns(table);
  const names: SQLChunk[] = [];
  const given: SQL[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const column = columns[key];
    if (!column) throw new Error(`insertInto: ${key} is not a column of the definition`);
    names.push(sql.identifier(column.name));
    if (column.columnType === 'PgJsonb') given.push(sql`${JSON.stringify(value)}::jsonb`);
    // One parameter each, arrays included (text[]): a bare array would expand to a list.
    else given.push(sql`${sql.param(value instanceof Date ? value.toISOString() : value)}`);
  }
  return sql`INSERT INTO ${table} (${sql.join(names, sql`, `)}) VALUES (${sql.join(given, sql`, `)})`;
}

interface CompiledInsert {
  text: string;
  keys: string[];
  jsonb: boolean[];
}
const compiledInserts = new WeakMap<Table, Map<string, CompiledInsert>>();

/**
 * The same statement as insertInto, as text and its values, the text built once per table, set of
 * columns and first placeholder: for a statement of the hot path sent with queryText (composing the
 * statement with drizzle's chunks at every call was ~6% of the event loop's CPU on the issue bench).
 */
export function insertText<T extends Table>(table: T, values: InsertValues<T>, firstParam = 1): { text: string; params: unknown[] } {
  const given = Object.keys(values).filter((k) => values[k as keyof typeof values] !== undefined);
  const signature = `${firstParam}:${given.join(',')}`;
  let byShape = compiledInserts.get(table);
  if (!byShape) compiledInserts.set(table, (byShape = new Map()));
  let compiled = byShape.get(signature);
  if (!compiled) {
    const columns = getTableColumns(table);
    const { sql: text } = new PgDialect().sqlToQuery(insertInto(table, Object.fromEntries(given.map((k) => [k, null])) as InsertValues<T>));
    // insertInto numbers its placeholders from 1; this statement's start at firstParam.
    compiled = {
      text: firstParam === 1 ? text : text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + firstParam - 1}`),
      keys: given,
      jsonb: given.map((k) => columns[k].columnType === 'PgJsonb'),
    };
    byShape.set(signature, compiled);
  }
  const params = compiled.keys.map((k, i) => {
    const value = values[k as keyof typeof values] as unknown;
    return compiled.jsonb[i] ? JSON.stringify(value) : value instanceof Date ? value.toISOString() : value;
  });
  return { text: compiled.text, params };
}

/**
 * The raw row (column names, instants as ISO text) that inserting `values` stores, for a caller that
 * answers the row without reading it back; the reader of the table (rowReader) fills the defaults.
 */
export function rawRowOf<T extends Table>(table: T, values: InsertValues<T>): Record<string, unknown> {
  const columns = getTableColumns(table);
  const raw: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) raw[columns[key].name] = value instanceof Date ? value.toISOString() : value;
  }
  return raw;
}
