/**
 * Restores a backup zip into a database that does not hold the business yet (operator CLI:
 * `pinkas backups restore --file PATH --mode live|test`). Every entry is checked against the
 * manifest's sha256 first; then, in one transaction, tables load in foreign-key order with
 * triggers and FK checks paused (`session_replication_role = replica`, as pg_dump --disable-triggers
 * does: the frozen-document triggers would otherwise refuse nothing here, but a document and its
 * credit note reference each other), and serial sequences are moved past the restored values.
 * Needs a superuser role on server PostgreSQL (the embedded engine always is one).
 */
import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/db/engine.ts';
import { query, queryOne } from '../platform/db/sql.ts';
import { AppError, conflict, validation } from '../platform/errors.ts';
import { BACKUP_FORMAT, type Manifest } from './create.ts';
import { businessTables, foreignKeys, loadOrder } from './catalog.ts';

const BATCH = 500;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export interface RestoreResult {
  businessId: string;
  tables: Record<string, number>;
  files: number;
}

/** Opens and checks a backup zip: the manifest, the sha256 of every entry, nothing unlisted. */
export function readBackup(zipBytes: Uint8Array): { manifest: Manifest; entries: Record<string, Uint8Array> } {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zipBytes);
  } catch {
    throw validation('file', 'is not a zip archive');
  }
  if (!entries['manifest.json']) throw validation('file', 'has no manifest.json');
  const manifest = JSON.parse(Buffer.from(entries['manifest.json']).toString('utf8')) as Manifest;
  if (manifest.format !== BACKUP_FORMAT) throw validation('file', `format "${manifest.format}" is not ${BACKUP_FORMAT}`);
  const listed = new Set(['manifest.json']);
  for (const e of [...manifest.tables, ...manifest.files]) {
    const bytes = entries[e.path];
    if (!bytes) throw validation('file', `${e.path} is listed in the manifest but missing`);
    if (sha256(bytes) !== e.sha256) throw validation('file', `${e.path} does not match its sha256 in the manifest`);
    listed.add(e.path);
  }
  const extra = Object.keys(entries).find((n) => !listed.has(n));
  if (extra) throw validation('file', `${extra} is not listed in the manifest`);
  return { manifest, entries };
}

function rowsOf(bytes: Uint8Array): Record<string, unknown>[] {
  return Buffer.from(bytes)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export async function restoreBackup(database: Database, zipBytes: Uint8Array): Promise<RestoreResult> {
  const { manifest, entries } = readBackup(zipBytes);
  const db = database.db;
  const exists = await queryOne(db, sql`SELECT 1 FROM businesses WHERE id = ${manifest.businessId}`);
  if (exists) throw conflict(`business ${manifest.businessId} already exists in the target database`);
  const known = new Set(await businessTables(db));
  const missing = manifest.tables.find((t) => !known.has(t.name));
  if (missing) throw new AppError(400, 'validation', `table ${missing.name} of the backup does not exist here: migrate the target first`);
  const { order } = loadOrder(manifest.tables.map((t) => t.name), await foreignKeys(db));
  const fileBytes = new Map(manifest.files.map((f) => [f.id, entries[f.path]]));
  const counts: Record<string, number> = {};
  await db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL session_replication_role = replica`);
    for (const table of order) {
      const entry = manifest.tables.find((t) => t.name === table)!;
      let rows = rowsOf(entries[entry.path]);
      if (table === 'files') {
        rows = rows.map((r) => {
          const bytes = fileBytes.get(String(r.id));
          if (!bytes) throw validation('file', `the content of file ${String(r.id)} is missing`);
          return { ...r, content: '\\x' + Buffer.from(bytes).toString('hex') };
        });
      }
      for (let i = 0; i < rows.length; i += BATCH) {
        await tx.execute(
          sql`INSERT INTO ${sql.identifier(table)} SELECT * FROM jsonb_populate_recordset(NULL::${sql.identifier(table)}, ${JSON.stringify(rows.slice(i, i + BATCH))}::jsonb)`,
        );
      }
      counts[table] = rows.length;
      // Serial columns: the next value must come after the restored ones.
      const serials = await query<{ column_name: string; seq: string }>(
        tx,
        sql`SELECT column_name, pg_get_serial_sequence(${table}, column_name) AS seq FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name = ${table} AND pg_get_serial_sequence(${table}, column_name) IS NOT NULL`,
      );
      for (const s of serials) {
        await tx.execute(
          sql`SELECT setval(${s.seq}, GREATEST((SELECT coalesce(max(${sql.identifier(s.column_name)}), 0) FROM ${sql.identifier(table)}), (SELECT last_value FROM ${sql.raw(s.seq)}), 1))`,
        );
      }
    }
  });
  return { businessId: manifest.businessId, tables: counts, files: manifest.files.length };
}
