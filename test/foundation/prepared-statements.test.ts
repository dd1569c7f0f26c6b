/**
 * `prepared(label, sql)` (src/platform/db/sql.ts): the hot path's statements run as named prepared
 * statements, parsed and planned once per connection. They answer what the unnamed statement answers,
 * inside and outside a transaction; a text never reuses another text's statement; a label whose text
 * keeps changing stops being prepared instead of piling up statements on every connection.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { prepared, query, queryOne } from '../../src/platform/db/sql.ts';
import { columnList } from '../../src/platform/db/row-reader.ts';
import { documents } from '../../src/documents/tables.ts';
import { getDocumentsWithAccount } from '../../src/documents/snapshot.ts';
import { freshDatabase } from '../helpers/databases.ts';

describe('prepared statements', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    fresh = await freshDatabase('live', 1);
  });
  afterAll(async () => {
    await fresh.drop();
  });

  /** The statements this connection has prepared by name (the pool has one connection). */
  const namesPrepared = async () =>
    (await query<{ name: string }>(fresh.database.db, sql`SELECT name FROM pg_prepared_statements ORDER BY name`)).map((r) => r.name);

  it('answers what the unnamed statement answers, and the connection keeps it by name', async () => {
    const plain = await queryOne<{ n: number; t: string }>(fresh.database.db, sql`SELECT ${41}::int + 1 AS n, ${'שלום'}::text AS t`);
    const named = await queryOne<{ n: number; t: string }>(fresh.database.db, prepared('sum_test', sql`SELECT ${41}::int + 1 AS n, ${'שלום'}::text AS t`));
    expect(named).toEqual(plain);
    expect(named).toEqual({ n: 42, t: 'שלום' });
    const again = await queryOne<{ n: number }>(fresh.database.db, prepared('sum_test', sql`SELECT ${1}::int + 1 AS n, ${'x'}::text AS t`));
    expect(again?.n).toBe(2);
    expect((await namesPrepared()).filter((n) => n.startsWith('sum_test_'))).toHaveLength(1);
  });

  it('runs inside a transaction on its connection, and two texts under one label are two statements', async () => {
    const rows = await fresh.database.db.transaction(async (tx) => {
      const a = await query<{ v: string }>(tx, prepared('pair_test', sql`SELECT ${'a'}::text AS v`));
      const b = await query<{ v: string }>(tx, prepared('pair_test', sql`SELECT ${'b'}::text || 'b' AS v`));
      return [...a, ...b];
    });
    expect(rows).toEqual([{ v: 'a' }, { v: 'bb' }]);
    expect((await namesPrepared()).filter((n) => n.startsWith('pair_test_'))).toHaveLength(2);
  });

  it('a label whose text keeps changing is prepared for its first 8 texts only', async () => {
    for (let i = 0; i < 12; i++) {
      const r = await queryOne<{ v: number }>(fresh.database.db, prepared('shape_test', sql`SELECT ${i}::int + ${sql.raw(String(i))} AS v`));
      expect(r?.v).toBe(2 * i);
    }
    expect((await namesPrepared()).filter((n) => n.startsWith('shape_test_'))).toHaveLength(8);
  });

  it('a list of ids is read with a generic plan, not planned again at every call (migration 0068)', async () => {
    // `d.id = ANY($1)` prepared as such kept custom plans only: a plan for one to eight ids always looked cheaper.
    for (let i = 0; i < 7; i++) expect((await getDocumentsWithAccount(fresh.database.db, [`doc_none_${i}`, `doc_none_x${i}`])).size).toBe(0);
    const [plans] = await query<{ generic_plans: number; custom_plans: number }>(
      fresh.database.db,
      sql`SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE name LIKE 'documents_with_account_%'`,
    );
    expect(plans.generic_plans).toBeGreaterThan(0);
  });

  it('a statement that names its columns survives a migration adding one; SELECT * is refused on the connection that prepared it', async () => {
    const byColumns = () => query(fresh.database.db, prepared('columns_test', sql`SELECT ${columnList(documents)} FROM documents WHERE id = ${'doc_none'}`));
    const byStar = () => query(fresh.database.db, prepared('star_test', sql`SELECT * FROM documents WHERE id = ${'doc_none'}`));
    expect(await byColumns()).toEqual([]);
    expect(await byStar()).toEqual([]);
    // Another process migrates meanwhile.
    const other = new pg.Client({ connectionString: fresh.url });
    await other.connect();
    await other.query('ALTER TABLE documents ADD COLUMN added_later integer');
    await other.end();
    expect(await byColumns()).toEqual([]);
    await expect(byStar()).rejects.toThrow();
  });
});
