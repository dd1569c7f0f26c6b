/**
 * Restores a backup zip into a database that does not hold the business yet (operator CLI:
 * `pinkas backups restore --file PATH --mode live|test`). The seal of the manifest and every entry's
 * sha256 are checked first (readBackup), before any database is touched; then, in one transaction, tables load in foreign-key order with
 * triggers and FK checks paused (`session_replication_role = replica`, as pg_dump --disable-triggers
 * does: the frozen-document triggers would otherwise refuse nothing here, but a document and its
 * credit note reference each other), and serial sequences are moved past the restored values.
 * The files' bytes go into this install's file store first (before the transaction that writes their
 * rows), and their rows name that store: a backup made with bytes in the database (file_chunks, before
 * migration 0030) or in another store is restored the same way.
 * Needs a superuser role on server PostgreSQL (the embedded engine always is one).
 */
import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/engine.ts';
import { query, queryOne } from '../platform/db/sql.ts';
import { AppError, conflict, validation } from '../platform/errors.ts';
import { putBytes } from '../platform/files.ts';
import type { Backend, FileStore } from '../platform/file-store/store.ts';
import { BACKUP_FORMAT, UNSEALED_FORMAT, type Manifest } from './create.ts';
import { checkSeal, SEAL_ENTRY } from './seal.ts';
import { businessTables, foreignKeys, loadOrder } from './catalog.ts';

const BATCH = 500;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export interface RestoreResult {
  businessId: string;
  /** The account that owns the business here (the backup's, or the one given with --account). */
  accountId: string;
  sealed: boolean;
  tables: Record<string, number>;
  files: number;
}

export interface ReadOptions {
  /** The key to check the seal with (null: none available; a sealed backup is then refused). */
  sealKey: { key: string; source: string } | null;
  /** Accept a `pinkas-backup/1` backup, written before backups were sealed (its sha256 list is still checked). */
  allowUnsealed?: boolean;
}

/**
 * Opens and checks a backup zip, before anything touches a database: a whole zip, the seal of
 * manifest.json (or an explicitly allowed old unsealed format), the sha256 of every entry, nothing
 * listed missing, nothing unlisted.
 */
export function readBackup(zipBytes: Uint8Array, opts: ReadOptions): { manifest: Manifest; entries: Record<string, Uint8Array>; sealed: boolean } {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zipBytes);
  } catch (err) {
    throw validation('file', `is not a whole zip archive (truncated or damaged: ${(err as Error).message})`);
  }
  const manifestBytes = entries['manifest.json'];
  if (!manifestBytes) throw validation('file', 'has no manifest.json');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(Buffer.from(manifestBytes).toString('utf8')) as Manifest;
  } catch {
    throw validation('file', 'manifest.json is not JSON');
  }
  const listed = new Set(['manifest.json']);
  let sealed = false;
  if (manifest?.format === BACKUP_FORMAT) {
    checkSeal(manifestBytes, entries[SEAL_ENTRY], opts.sealKey);
    listed.add(SEAL_ENTRY);
    sealed = true;
  } else if (manifest?.format === UNSEALED_FORMAT) {
    if (!opts.allowUnsealed) {
      throw validation(
        'file',
        `is an unsealed backup (format ${UNSEALED_FORMAT}, written before backups were sealed): nothing proves it is whole or where it came from; restore it with --allow-unsealed if you trust its source`,
      );
    }
  } else {
    throw validation('file', `format "${String(manifest?.format)}" is not ${BACKUP_FORMAT}`);
  }
  if (!Array.isArray(manifest.tables) || !Array.isArray(manifest.files) || typeof manifest.businessId !== 'string')
    throw validation('file', 'manifest.json lacks tables, files or businessId');
  for (const e of [...manifest.tables, ...manifest.files]) {
    const bytes = entries[e.path];
    if (!bytes) throw validation('file', `${e.path} is listed in the manifest but missing`);
    if (sha256(bytes) !== e.sha256) throw validation('file', `${e.path} does not match its sha256 in the manifest`);
    listed.add(e.path);
  }
  const extra = Object.keys(entries).find((n) => !listed.has(n));
  if (extra) throw validation('file', `${extra} is not listed in the manifest`);
  return { manifest, entries, sealed };
}

function rowsOf(bytes: Uint8Array): Record<string, unknown>[] {
  return Buffer.from(bytes)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export interface RestoreOptions extends ReadOptions {
  /** The live database, where accounts are. */
  accounts: Database;
  /** The file store of the target database's mode, which receives the files. */
  store: FileStore;
  /** Give the business to this account of the target (a new install has not got the backup's account). */
  accountId?: string;
}

/** Tables whose account_id is history, not ownership: left as written (audit rows are hashed). */
const ACCOUNT_HISTORY = new Set(['audit_log']);

export async function restoreBackup(database: Database, zipBytes: Uint8Array, opts: RestoreOptions): Promise<RestoreResult> {
  const { manifest, entries, sealed } = readBackup(zipBytes, opts);
  const db = database.db;
  const exists = await queryOne(db, sql`SELECT 1 FROM businesses WHERE id = ${manifest.businessId}`);
  if (exists) throw conflict(`business ${manifest.businessId} already exists in the target database`);
  const businessEntry = manifest.tables.find((t) => t.name === 'businesses');
  const businessRow = businessEntry ? rowsOf(entries[businessEntry.path]).find((r) => r.id === manifest.businessId) : undefined;
  if (!businessRow) throw validation('file', `holds no row of business ${manifest.businessId}`);
  const ownerInBackup = String(businessRow.account_id);
  const owner = opts.accountId ?? ownerInBackup;
  const account = await queryOne(opts.accounts.db, sql`SELECT 1 FROM accounts WHERE id = ${owner}`);
  if (!account) {
    throw opts.accountId
      ? validation('account', `no account ${owner} here (pinkas accounts list)`)
      : validation(
          'account',
          `the business belongs to account ${ownerInBackup}, which does not exist here: create one (pinkas accounts create --name N) and pass --account ID to give it the business`,
        );
  }
  const known = new Set(await businessTables(db));
  const missing = manifest.tables.find((t) => !known.has(t.name));
  if (missing) throw new AppError('validation', `table ${missing.name} of the backup does not exist here: migrate the target first`);
  const { order } = loadOrder(
    manifest.tables.map((t) => t.name),
    await foreignKeys(db),
  );
  await putFiles(opts.store, manifest, entries);
  const counts: Record<string, number> = {};
  await db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL session_replication_role = replica`);
    for (const table of order) {
      const entry = manifest.tables.find((t) => t.name === table)!;
      let rows = rowsOf(entries[entry.path]);
      if (owner !== ownerInBackup && !ACCOUNT_HISTORY.has(table)) {
        rows = rows.map((r) => (r.account_id === ownerInBackup ? { ...r, account_id: owner } : r));
      }
      rows = asStored(table, rows, opts.store.backend, manifest);
      const columns = sql.join(
        (await storedColumns(tx, table)).map((c) => sql.identifier(c)),
        sql`, `,
      );
      for (let i = 0; i < rows.length; i += BATCH) {
        await tx.execute(
          sql`INSERT INTO ${sql.identifier(table)} (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::${sql.identifier(table)}, ${JSON.stringify(rows.slice(i, i + BATCH))}::jsonb)`,
        );
      }
      counts[table] = rows.length;
      await advanceSerials(tx, table);
    }
  });
  return { businessId: manifest.businessId, accountId: owner, sealed, tables: counts, files: manifest.files.length };
}

type Row = Record<string, unknown>;

/** Every file's bytes into the store (their sha256 was checked against the manifest by readBackup). */
async function putFiles(store: FileStore, manifest: Manifest, entries: Record<string, Uint8Array>): Promise<void> {
  for (const f of manifest.files) {
    const object = await putBytes(store, entries[f.path]);
    if (object.sha256 !== f.sha256) throw validation('file', `${f.path} does not match its sha256 in the manifest`);
  }
}

/**
 * File rows name the store their bytes went to, content and chunks cleared; chunk rows of a backup made
 * before migration 0030 are not loaded (their bytes were put whole). A row whose content the backup lacks
 * is refused: the backup is not whole.
 */
function asStored(table: string, rows: Row[], backend: Backend, manifest: Manifest): Row[] {
  if (table === 'file_chunks') return [];
  if (table !== 'files') return rows;
  const held = new Map(manifest.files.map((f) => [f.id, f.sha256]));
  return rows.map((r) => {
    if (held.get(String(r.id)) !== r.sha256) throw validation('file', `the content of file ${String(r.id)} is missing`);
    return { ...r, content: null, chunk_size: null, store: backend };
  });
}

/**
 * The columns a restore writes: every column but the generated ones, which PostgreSQL computes from
 * the others (documents.search_text, migration 0024) and refuses to be given. A backup holds them
 * (to_jsonb of the row) or, made before they existed, not: either way they are computed again.
 */
async function storedColumns(tx: Executor, table: string): Promise<string[]> {
  const rows = await query<{ column_name: string }>(
    tx,
    sql`SELECT column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = ${table} AND is_generated = 'NEVER' ORDER BY ordinal_position`,
  );
  return rows.map((r) => r.column_name);
}

/** Serial columns: the next value must come after the restored ones. */
async function advanceSerials(tx: Executor, table: string): Promise<void> {
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
