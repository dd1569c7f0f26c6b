/**
 * `INSERT INTO table (columns) VALUES (...)` from an object keyed by a drizzle table definition's
 * keys (issue 19): the definition names the columns and TypeScript checks the keys and value types,
 * so a statement keeps no column list by hand, and it still composes into a larger statement (a CTE,
 * `ON CONFLICT`, `RETURNING`). jsonb values are written as their JSON text (`null` → JSON null, as
 * `JSON.stringify` writes it); instants may be given as Date or ISO 8601 text.
 */
import { getTableColumns, sql, SQL, type SQLChunk, type Table } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';

/** What a statement may give a column: the definition's insert type, instants also as ISO text. */
export type InsertValues<T extends Table> = {
  [K in keyof T['$inferInsert']]?: T['$inferInsert'][K] extends Date | null | undefined ? T['$inferInsert'][K] | string : T['$inferInsert'][K];
};

/** Each given column's name and its value as a statement writes it (jsonb as its JSON text, instants as ISO text). */
function columnValues<T extends Table>(table: T, values: SetValues<T>, caller: string): { name: SQLChunk; value: SQL }[] {
  const columns = getTableColumns(table);
  const out: { name: SQLChunk; value: SQL }[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const column = columns[key];
    if (!column) throw new Error(`${caller}: ${key} is not a column of the definition`);
    const name = sql.identifier(column.name);
    if (value instanceof SQL) out.push({ name, value });
    else if (column.columnType === 'PgJsonb') out.push({ name, value: sql`${JSON.stringify(value)}::jsonb` });
    // One parameter each, arrays included (text[]): a bare array would expand to a list.
    else out.push({ name, value: sql`${sql.param(value instanceof Date ? value.toISOString() : value)}` });
  }
  return out;
}

export function insertInto<T extends Table>(table: T, values: InsertValues<T>): SQL {
  const given = columnValues(table, values, 'insertInto');
  const names = sql.join(
    given.map((g) => g.name),
    sql`, `,
  );
  return sql`INSERT INTO ${table} (${names}) VALUES (${sql.join(
    given.map((g) => g.value),
    sql`, `,
  )})`;
}

/** What an UPDATE may give a column: as for an insert, or an expression. */
export type SetValues<T extends Table> = { [K in keyof InsertValues<T>]?: InsertValues<T>[K] | SQL };

/** `UPDATE table SET column = value, …` from an object keyed by the definition's keys, as insertInto names its columns. */
export function updateSet<T extends Table>(table: T, values: SetValues<T>): SQL {
  const pairs = columnValues(table, values, 'updateSet').map((g) => sql`${g.name} = ${g.value}`);
  return sql`UPDATE ${table} SET ${sql.join(pairs, sql`, `)}`;
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
