/**
 * A backup: a zip of every record of the business as JSON lines (one file per table, each row as
 * PostgreSQL's to_jsonb gives it, so every column and type round-trips) plus the content of its
 * files, with manifest.json listing the sha256 of every entry. Rows are read in pages, each page
 * its own short statement (no long transaction on the embedded engine). The files stream from the
 * file store into the zip, each checked against its sha256 as it passes (a mismatch fails the
 * backup), and the zip streams to a spool and from there into the store: no file, and not the
 * zip, is held whole in memory.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import yazl from 'yazl';
import '../platform/zip-crc.ts';
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/engine.ts';
import { iso, query } from '../platform/db/sql.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { putSpool, recordFile, storedFile, type FileMeta } from '../platform/files.ts';
import { checkedBytes, fileReading, type FileReading } from '../platform/file-read.ts';
import { spoolStream } from '../platform/file-store/spool.ts';
import { newId } from '../platform/ids.ts';
import type { Services } from '../platform/http/services.ts';
import { afterCursor, cursorAtSql, decodeCursor, pageOf } from '../platform/http/cursor.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { seal, SEAL_ENTRY, sealKeyForWriting } from './seal.ts';
import { businessTables, foreignKeys, loadOrder, ownership, primaryKeyColumns } from './catalog.ts';

/** Sealed backups (manifest.seal.json); `pinkas-backup/1` was the unsealed format before it. */
export const BACKUP_FORMAT = 'pinkas-backup/2';
export const UNSEALED_FORMAT = 'pinkas-backup/1';
const PAGE = 1000;

export interface Manifest {
  format: typeof BACKUP_FORMAT | typeof UNSEALED_FORMAT;
  businessId: string;
  createdAt: string;
  /** Load order; each table's rows are in tables/<name>.jsonl. */
  tables: { name: string; rows: number; path: string; sha256: string }[];
  files: { id: string; sha256: string; size: number; path: string }[];
  notBackedUp: string[];
}

export interface BackupView {
  id: string;
  fileId: string;
  createdAt: string;
  summary: { format: string; tables: Record<string, number>; files: number; manifestSha256: string; sealKeyId?: string };
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function tableRows(ex: Executor, table: string, businessId: string): Promise<string[]> {
  const pk = await primaryKeyColumns(ex, table);
  const orderBy = sql.join(
    pk.map((c) => sql`t.${sql.identifier(c)}`),
    sql`, `,
  );
  const lines: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    // File bytes travel as entries of their own (files/<sha256>), not inside the row: neither a
    // file's inline content nor its chunks' bytes (restore cuts the chunks again from the entry).
    const rows = await query<{ row: unknown }>(
      ex,
      sql`SELECT (to_jsonb(t) - 'content' - 'bytes')::text AS row FROM ${sql.identifier(table)} t
          WHERE ${ownership(table, businessId)} ORDER BY ${orderBy} LIMIT ${PAGE} OFFSET ${offset}`,
    );
    for (const r of rows) lines.push(String(r.row));
    if (rows.length < PAGE) return lines;
  }
}

/** Adds every table's rows (and the bytes of each backed-up file) to the zip, in load order; returns the manifest. */
async function addBusinessData(r: FileReading, zip: yazl.ZipFile, business: BusinessRecord, at: Date): Promise<Manifest> {
  const db = r.db;
  const { order, dropped } = loadOrder(await businessTables(db), await foreignKeys(db));
  const manifest: Manifest = { format: BACKUP_FORMAT, businessId: business.id, createdAt: at.toISOString(), tables: [], files: [], notBackedUp: dropped };
  // Earlier backup zips are not business records (see NOT_BACKED_UP): their file rows and bytes stay out.
  const backupFiles = new Set(
    (await query<{ file_id: string }>(db, sql`SELECT file_id FROM backups WHERE business_id = ${business.id}`)).map((r) => r.file_id),
  );
  for (const table of order) {
    let lines = await tableRows(db, table, business.id);
    if (table === 'files') lines = lines.filter((l) => !backupFiles.has(String(JSON.parse(l).id)));
    if (table === 'file_chunks') lines = lines.filter((l) => !backupFiles.has(String(JSON.parse(l).file_id)));
    const bytes = Buffer.from(lines.map((l) => l + '\n').join(''), 'utf8');
    const path = `tables/${table}.jsonl`;
    zip.addBuffer(bytes, path, { mtime: at });
    manifest.tables.push({ name: table, rows: lines.length, path, sha256: sha256(bytes) });
    if (table === 'files') await addFileContents(r, zip, { manifest, fileLines: lines, at });
  }
  return manifest;
}

/**
 * Each file's bytes as an entry, streamed from wherever they are when the zip is written. The manifest
 * states the sha256 of the row; the bytes are hashed as they pass and a mismatch (or a missing object)
 * ends the zip's stream with the error, so an altered file never makes a backup.
 */
async function addFileContents(
  r: FileReading,
  zip: yazl.ZipFile,
  { manifest, fileLines, at }: { manifest: Manifest; fileLines: string[]; at: Date },
): Promise<void> {
  for (const l of fileLines) {
    const id = String(JSON.parse(l).id);
    const f = await storedFile(r.db, id);
    if (!f) continue;
    const p = `files/${f.sha256}`;
    const bytes = Readable.from(checkedBytes(r, f));
    // yazl does not pass an entry's error on: the zip's own stream is ended with it.
    bytes.on('error', (err) => (zip.outputStream as unknown as Readable).destroy(err));
    zip.addReadStream(bytes, p, { mtime: at, size: f.size });
    manifest.files.push({ id, sha256: f.sha256, size: f.size, path: p });
  }
}

export async function createBackup(s: Services, database: Database, business: BusinessRecord, actor: Actor): Promise<{ backup: BackupView; file: FileMeta }> {
  const db = database.db;
  // Before any work: production without BACKUP_SEAL_KEY refuses (503 unconfigured).
  const sealKey = sealKeyForWriting(s.config);
  const at = s.clock.now();
  const store = s.fileStores[database.mode].current;
  const zip = new yazl.ZipFile();
  const out = zip.outputStream as unknown as Readable;
  // Entries start streaming as they are added: a file that fails its check ends `out` with the error, maybe
  // before the spool below reads it. The spool's reader still gets the error (the stream keeps it); this
  // listener only keeps that error from also being raised as an uncaught one.
  out.on('error', () => {});
  const manifest = await addBusinessData(fileReading(s, database), zip, business, at);
  const manifestBytes = Buffer.from(JSON.stringify(manifest, null, 2), 'utf8');
  zip.addBuffer(manifestBytes, 'manifest.json', { mtime: at });
  const theSeal = seal(manifestBytes, sealKey);
  zip.addBuffer(Buffer.from(JSON.stringify(theSeal, null, 2), 'utf8'), SEAL_ENTRY, { mtime: at });
  zip.end();
  // Into the store before the transaction that names it.
  const object = await putSpool(store, await spoolStream(out, { dir: store.spoolDir }));
  const summary = {
    format: BACKUP_FORMAT,
    tables: Object.fromEntries(manifest.tables.map((t) => [t.name, t.rows])),
    files: manifest.files.length,
    manifestSha256: sha256(manifestBytes),
    sealKeyId: theSeal.keyId,
  };
  const id = newId('bak', at.getTime());
  return db.transaction(async (tx) => {
    const { existed: _e, ...file } = await recordFile(tx, at, {
      businessId: business.id,
      object,
      mime: 'application/zip',
      name: `backup-${business.id}-${at.toISOString().slice(0, 10)}.zip`,
    });
    await tx.execute(sql`INSERT INTO backups(id, business_id, file_id, summary, created_by_key_id, created_at)
      VALUES (${id}, ${business.id}, ${file.id}, ${JSON.stringify(summary)}::jsonb, ${actor.keyId}, ${at.toISOString()})`);
    await appendAudit(
      tx,
      { at, actor },
      {
        businessId: business.id,
        action: 'backup.create',
        entityType: 'backup',
        entityId: id,
        after: { fileId: file.id, summary },
      },
    );
    return { backup: { id, fileId: file.id, createdAt: at.toISOString(), summary }, file };
  });
}

/** One page of backups, newest first in the order (created_at, id) (index backups_list); `cursor`: the previous page's nextCursor. */
export async function listBackups(
  ex: Executor,
  businessId: string,
  q: { take: number; cursor?: string },
): Promise<{ backups: (BackupView & { file: FileMeta | null })[]; nextCursor: string | null }> {
  const after = q.cursor ? sql` AND ${afterCursor(decodeCursor('backups', q.cursor), sql`b.created_at`, sql`b.id`)}` : sql``;
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT b.id, b.file_id, b.summary, b.created_at, ${cursorAtSql(sql`b.created_at`)} AS cursor_at, f.name, f.mime, f.size, f.sha256, f.created_at AS file_created_at
        FROM backups b LEFT JOIN files f ON f.id = b.file_id
        WHERE b.business_id = ${businessId}${after} ORDER BY b.created_at DESC, b.id DESC LIMIT ${q.take + 1}`,
  );
  const { page, nextCursor } = pageOf('backups', rows, q.take, (r) => ({ createdAt: String(r.cursor_at), id: String(r.id) }));
  const backups = page.map((r) => ({
    id: String(r.id),
    fileId: String(r.file_id),
    createdAt: iso(r.created_at),
    summary: (typeof r.summary === 'string' ? JSON.parse(r.summary) : r.summary) as BackupView['summary'],
    file:
      r.name == null
        ? null
        : {
            id: String(r.file_id),
            name: String(r.name),
            mime: String(r.mime),
            size: Number(r.size),
            sha256: String(r.sha256),
            createdAt: iso(r.file_created_at),
          },
  }));
  return { backups, nextCursor };
}
