/**
 * Reads a raw row (snake_case columns from a hand-written SQL statement) into the typed row of a
 * drizzle table definition: the table's definition is the one list of its columns, so no module keeps
 * a second one by hand (issue 19). Instants are answered as ISO 8601 text, days as `YYYY-MM-DD`.
 */
import { getTableColumns, sql, SQL, type Table } from 'drizzle-orm';
import { iso, isoDay } from './sql.ts';

/** A table's row as the service hands it on: instants as ISO 8601 text. */
export type Readable<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

type Reader = (v: unknown) => unknown;
const asJson: Reader = (v) => (typeof v === 'string' ? (JSON.parse(v) as unknown) : v);
const asNumber: Reader = (v) => Number(v);
const asIs: Reader = (v) => v;
const BY_COLUMN_TYPE: Record<string, Reader> = {
  PgTimestamp: iso,
  PgDateString: isoDay,
  PgBigInt53: asNumber,
  PgInteger: asNumber,
  PgSmallInt: asNumber,
  PgSerial: asNumber,
  PgBigSerial53: asNumber,
  PgJsonb: asJson,
  PgJson: asJson,
  PgText: asIs,
  // pg parses text[] and the other arrays it knows.
  PgArray: asIs,
  PgBoolean: asIs,
  PgCustomColumn: asIs,
};

/**
 * The reader of one table's raw rows. A column missing from the raw row (a statement that selected
 * less) takes the definition's default when it has a literal one, else null. Generated columns
 * (computed by PostgreSQL for an index, e.g. documents.search_text) are left out: the caller's type
 * names them in `Left`.
 */
export function rowReader<T extends Table, Left extends keyof T['$inferSelect'] = never>(
  table: T,
): (raw: Record<string, unknown>) => Omit<Readable<T['$inferSelect']>, Left> {
  const stored = Object.entries(getTableColumns(table)).filter(([, column]) => column.generated === undefined);
  const columns = stored.map(([key, column]) => {
    const read = BY_COLUMN_TYPE[column.columnType];
    if (!read) throw new Error(`rowReader: no reader for ${column.columnType} (${column.name})`);
    const literal = column.hasDefault && column.default !== undefined && !(column.default instanceof SQL);
    return { key, name: column.name, read, fallback: literal ? (column.default as unknown) : null };
  });
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (const c of columns) {
      const v = raw[c.name];
      row[c.key] = v === undefined ? structuredClone(c.fallback) : v === null ? null : c.read(v);
    }
    return row as Omit<Readable<T['$inferSelect']>, Left>;
  };
}

/**
 * The table's stored columns by name, for a select list or RETURNING (`alias.` before each when given): a
 * prepared statement that names its columns keeps its row type when a later migration adds a column, where
 * `SELECT *` would be refused by PostgreSQL on connections that prepared it before. Built once per table and alias
 * (the hot path asks for it on every request).
 */
const columnLists = new WeakMap<Table, Map<string, SQL>>();
export function columnList(table: Table, alias = ''): SQL {
  let byAlias = columnLists.get(table);
  if (!byAlias) columnLists.set(table, (byAlias = new Map()));
  let list = byAlias.get(alias);
  if (!list) {
    const prefix = alias ? `${alias}.` : '';
    const names = Object.values(getTableColumns(table))
      .filter((column) => column.generated === undefined)
      .map((column) => `${prefix}"${column.name}"`);
    byAlias.set(alias, (list = sql.raw(names.join(', '))));
  }
  return list;
}
