/**
 * `INSERT INTO table (columns) VALUES (...)` from an object keyed by a drizzle table definition's
 * keys (issue 19): the definition names the columns and TypeScript checks the keys and value types,
 * so a statement keeps no column list by hand, and it still composes into a larger statement (a CTE,
 * `ON CONFLICT`, `RETURNING`). jsonb values are written as their JSON text (`null` → JSON null, as
 * `JSON.stringify` writes it); instants may be given as Date or ISO 8601 text.
 */
import { getTableColumns, sql, type SQL, type SQLChunk, type Table } from 'drizzle-orm';

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
