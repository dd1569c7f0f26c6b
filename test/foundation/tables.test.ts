/**
 * The typed table definitions (src/<domain>/tables.ts, src/platform/db/tables.ts) against the schema
 * the migrations make: every table has exactly one definition, and every definition has the
 * database's columns (name, type, nullability, default present or not), primary key and unique
 * constraints/indexes. A migration that adds a column without adding it to the definition fails here.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/platform/db/engine.ts';
import { query } from '../../src/platform/db/sql.ts';
import { freshDatabase } from '../helpers/databases.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The migrator's own ledger (src/platform/db/migrate.ts), not a table of the books. */
const UNDEFINED_TABLES = new Set(['schema_migrations']);

interface ColumnShape {
  type: string;
  notNull: boolean;
  hasDefault: boolean;
  /** The database's default expression, for the message. */
  defaultText?: string | null;
}
interface UniqueShape {
  columns: string[];
  partial: boolean;
}
interface TableShape {
  columns: Map<string, ColumnShape>;
  primaryKey: string[];
  uniques: Map<string, UniqueShape>;
}
interface Definition {
  /** Where it is written, e.g. src/parties/tables.ts (parties). */
  where: string;
  shape: TableShape;
}

/** Drizzle writes `timestamp (3)` and serial pseudo-types; PostgreSQL's format_type writes `timestamp(3)` and the real type. */
function normalType(sqlType: string): string {
  const t = sqlType.toLowerCase().replace(/\s+\(/g, '(').trim();
  const serial: Record<string, string> = { bigserial: 'bigint', serial: 'integer', smallserial: 'smallint' };
  return serial[t] ?? t;
}

function definitionShape(table: PgTable): TableShape {
  const config = getTableConfig(table);
  const columns = new Map<string, ColumnShape>();
  const primaryKey: string[] = [];
  const uniques = new Map<string, UniqueShape>();
  for (const c of config.columns) {
    // A JS-side default ($defaultFn) is no default of the database.
    const hasDefault = c.hasDefault && c.defaultFn === undefined && c.onUpdateFn === undefined;
    columns.set(c.name, { type: normalType(c.getSQLType()), notNull: c.notNull, hasDefault });
    if (c.primary) primaryKey.push(c.name);
    if (c.isUnique) uniques.set(c.uniqueName ?? `${config.name}_${c.name}_unique`, { columns: [c.name], partial: false });
  }
  for (const pk of config.primaryKeys) primaryKey.push(...pk.columns.map((c) => c.name));
  for (const u of config.uniqueConstraints) {
    const names = u.columns.map((c) => c.name);
    uniques.set(u.getName() ?? `${config.name}_${names.join('_')}_unique`, { columns: names, partial: false });
  }
  for (const ix of config.indexes) {
    if (!ix.config.unique) continue;
    const names = ix.config.columns.map((c) => ('name' in c && typeof c.name === 'string' ? c.name : '<expression>'));
    uniques.set(ix.config.name ?? '<unnamed>', { columns: names, partial: ix.config.where !== undefined });
  }
  return { columns, primaryKey, uniques };
}

/** Every PgTable exported by a `tables.ts` under src/, found on disk so a new domain file cannot be forgotten. */
async function loadDefinitions(): Promise<Map<string, Definition[]>> {
  const files = (readdirSync(path.join(ROOT, 'src'), { recursive: true }) as string[]).filter((f) => path.basename(f) === 'tables.ts').sort();
  const byTable = new Map<string, Definition[]>();
  for (const file of files) {
    const mod = (await import(pathToFileURL(path.join(ROOT, 'src', file)).href)) as Record<string, unknown>;
    for (const [exportName, value] of Object.entries(mod)) {
      if (!is(value, PgTable)) continue;
      const name = getTableConfig(value).name;
      const list = byTable.get(name) ?? [];
      list.push({ where: `src/${file} (${exportName})`, shape: definitionShape(value) });
      byTable.set(name, list);
    }
  }
  return byTable;
}

async function databaseShapes(db: Database['db']): Promise<Map<string, TableShape>> {
  const tables = await query<{ table_name: string }>(
    db,
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const shapes = new Map<string, TableShape>(tables.map((t) => [t.table_name, { columns: new Map(), primaryKey: [], uniques: new Map() }]));
  const columns = await query<{ table_name: string; column_name: string; is_nullable: string; column_default: string | null; sql_type: string }>(
    db,
    sql`SELECT c.table_name, c.column_name, c.is_nullable, c.column_default, format_type(a.atttypid, a.atttypmod) AS sql_type
          FROM information_schema.columns c
          JOIN pg_attribute a ON a.attrelid = (quote_ident(c.table_schema) || '.' || quote_ident(c.table_name))::regclass
                             AND a.attname = c.column_name
         WHERE c.table_schema = 'public'`,
  );
  for (const c of columns) {
    shapes.get(c.table_name)?.columns.set(c.column_name, {
      type: normalType(c.sql_type),
      notNull: c.is_nullable === 'NO',
      hasDefault: c.column_default !== null,
      defaultText: c.column_default,
    });
  }
  const indexes = await query<{ table_name: string; index_name: string; is_primary: boolean; columns: string[]; partial: boolean }>(
    db,
    sql`SELECT t.relname::text AS table_name, i.relname::text AS index_name, x.indisprimary AS is_primary, x.indpred IS NOT NULL AS partial,
               array(SELECT coalesce(a.attname::text, '<expression>') FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
                       LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns
          FROM pg_index x
          JOIN pg_class i ON i.oid = x.indexrelid
          JOIN pg_class t ON t.oid = x.indrelid
          JOIN pg_namespace ns ON ns.oid = t.relnamespace
         WHERE ns.nspname = 'public' AND x.indisunique`,
  );
  for (const ix of indexes) {
    const shape = shapes.get(ix.table_name);
    if (!shape) continue;
    if (ix.is_primary) shape.primaryKey = ix.columns;
    else shape.uniques.set(ix.index_name, { columns: ix.columns, partial: ix.partial });
  }
  return shapes;
}

/** The builder that writes a column of this SQL type (src/platform/db/tables.ts helpers), for the messages. */
function builderFor(column: string, c: ColumnShape): string {
  const array = c.type.endsWith('[]');
  const base = array ? c.type.slice(0, -2) : c.type;
  const builders: Record<string, string> = {
    text: 'text',
    integer: 'integer',
    smallint: 'smallint',
    bigint: 'int8',
    boolean: 'boolean',
    jsonb: 'jsonb',
    date: 'day',
    bytea: 'bytea',
    xid8: 'xid8',
    'timestamp(3) with time zone': 'timestamptz3',
    'timestamp with time zone': 'timestamptz',
  };
  const builder = builders[base] ? `${builders[base]}('${column}')` : `customType(${base})('${column}')`;
  return `${builder}${array ? '.array()' : ''}${c.notNull ? '.notNull()' : ''}${c.hasDefault ? `.default(/* ${c.defaultText} */)` : ''}`;
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** Every difference between the definitions and the database, each saying what to change where. */
function differences(definitions: Map<string, Definition[]>, database: Map<string, TableShape>): string[] {
  const problems: string[] = [];
  for (const [table, defs] of definitions) {
    if (defs.length > 1)
      problems.push(`${table}: defined ${defs.length} times (${defs.map((d) => d.where).join(', ')}); keep the one in the domain that writes it`);
    if (UNDEFINED_TABLES.has(table)) problems.push(`${table}: belongs to the migrator; remove its definition from ${defs[0].where}`);
    else if (!database.has(table))
      problems.push(`${table}: defined in ${defs[0].where} but no migration creates it; remove the definition or add the migration`);
  }
  for (const [table, db] of database) {
    if (UNDEFINED_TABLES.has(table)) continue;
    const def = definitions.get(table)?.[0];
    if (!def) {
      problems.push(`${table}: created by the migrations but defined nowhere; add pgTable('${table}', …) to the tables.ts of the domain that writes it`);
      continue;
    }
    const at = def.where;
    for (const [name, want] of db.columns) {
      const have = def.shape.columns.get(name);
      if (!have) {
        problems.push(`${table}.${name}: in the database but not in ${at}; add ${builderFor(name, want)}`);
        continue;
      }
      if (have.type !== want.type) problems.push(`${table}.${name}: ${at} says ${have.type}, the database ${want.type}; write ${builderFor(name, want)}`);
      if (have.notNull !== want.notNull) {
        problems.push(
          `${table}.${name}: the database column is ${want.notNull ? 'NOT NULL' : 'nullable'}; ${want.notNull ? 'add' : 'remove'} .notNull() in ${at}`,
        );
      }
      if (have.hasDefault !== want.hasDefault) {
        problems.push(
          want.hasDefault
            ? `${table}.${name}: the database has DEFAULT ${want.defaultText}; add .default(…) in ${at}`
            : `${table}.${name}: the database has no default; remove .default(…) in ${at}`,
        );
      }
    }
    for (const name of def.shape.columns.keys()) {
      if (!db.columns.has(name)) problems.push(`${table}.${name}: in ${at} but not in the database; remove it, or add it by a migration`);
    }
    if (!sameList([...def.shape.primaryKey].sort(), [...db.primaryKey].sort())) {
      problems.push(`${table}: primary key (${db.primaryKey.join(', ')}) in the database, (${def.shape.primaryKey.join(', ')}) in ${at}`);
    }
    for (const [name, want] of db.uniques) {
      const have = def.shape.uniques.get(name);
      if (!have) {
        problems.push(
          `${table}: unique ${name} (${want.columns.join(', ')}) is missing from ${at}; add ${want.partial ? `uniqueIndex('${name}').on(…).where(sql\`…\`)` : `unique('${name}').on(…)`}`,
        );
      } else if (!sameList(have.columns, want.columns) || have.partial !== want.partial) {
        problems.push(
          `${table}: unique ${name} is (${want.columns.join(', ')})${want.partial ? ' partial' : ''} in the database, (${have.columns.join(', ')})${have.partial ? ' partial' : ''} in ${at}`,
        );
      }
    }
    for (const name of def.shape.uniques.keys()) {
      if (!db.uniques.has(name)) problems.push(`${table}: unique ${name} of ${at} is not in the database (name it as PostgreSQL does, or remove it)`);
    }
  }
  return problems;
}

describe('typed table definitions', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let definitions: Map<string, Definition[]>;

  beforeAll(async () => {
    fresh = await freshDatabase('live', 2);
    definitions = await loadDefinitions();
  });
  afterAll(async () => {
    await fresh?.drop();
  });

  it('every table of the migrations has exactly one definition, and every definition matches its table', async () => {
    const database = await databaseShapes(fresh.database.db);
    // A sanity floor: the checker really read the schema and found the domains' files.
    expect(database.size).toBeGreaterThan(30);
    expect(definitions.get('parties')?.[0].where).toBe('src/parties/tables.ts (parties)');
    expect(differences(definitions, database)).toEqual([]);
  });

  it('names each drift and what to change: a column added, a nullability changed, a table without a definition', async () => {
    // Only the drift made here counts (a wrong definition already fails the test above).
    const already = new Set(differences(definitions, await databaseShapes(fresh.database.db)));
    await fresh.database.db.execute(sql`ALTER TABLE parties ADD COLUMN nickname text NOT NULL DEFAULT ''`);
    await fresh.database.db.execute(sql`ALTER TABLE webhook_endpoints ALTER COLUMN url DROP NOT NULL`);
    await fresh.database.db.execute(sql`ALTER TABLE backups ALTER COLUMN created_by_key_id TYPE integer USING NULL`);
    await fresh.database.db.execute(sql`CREATE TABLE gadgets (id text PRIMARY KEY)`);
    await fresh.database.db.execute(sql`CREATE UNIQUE INDEX parties_one_email ON parties(business_id, email) WHERE email IS NOT NULL`);
    const problems = differences(definitions, await databaseShapes(fresh.database.db)).filter((p) => !already.has(p));
    expect(problems).toEqual(
      expect.arrayContaining([
        `parties.nickname: in the database but not in src/parties/tables.ts (parties); add text('nickname').notNull().default(/* ''::text */)`,
        'webhook_endpoints.url: the database column is nullable; remove .notNull() in src/webhooks/tables.ts (webhookEndpoints)',
        `backups.created_by_key_id: src/backups/tables.ts (backups) says text, the database integer; write integer('created_by_key_id')`,
        `gadgets: created by the migrations but defined nowhere; add pgTable('gadgets', …) to the tables.ts of the domain that writes it`,
        "parties: unique parties_one_email (business_id, email) is missing from src/parties/tables.ts (parties); add uniqueIndex('parties_one_email').on(…).where(sql`…`)",
      ]),
    );
    expect(problems).toHaveLength(5);
  });
});
