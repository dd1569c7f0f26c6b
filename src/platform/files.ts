import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { sql } from 'drizzle-orm';
import type { Executor } from './db/engine.ts';
import { iso, queryOne } from './db/sql.ts';
import { insertInto } from './db/insert-values.ts';
import { files } from './db/tables.ts';
import { newId } from './ids.ts';
import type { Backend, FileStore } from './file-store/store.ts';
import { discardSpool, spoolStream, type Spool } from './file-store/spool.ts';

/**
 * Stored files (issue 31). A file's bytes are an object of a content-addressed store (platform/file-store:
 * a folder, or an S3-compatible bucket), keyed by their sha256; its `files` row (one per business and
 * content) holds the name, type, size and sha256, and `store` names the backend. Every write puts the
 * object first and inserts the row after, in the caller's transaction: a row never names a missing
 * object, and a crash in between leaves an orphan the sweep removes. Rows written before migration 0030
 * keep their bytes in the database (inline `content`, or `file_chunks`) until `pinkas files migrate`;
 * reading is in file-read.ts, and checks every byte against the row's sha256.
 */

export interface FileMeta {
  id: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
  createdAt: string;
}

/** A file's row without its bytes: whose it is and where its bytes are. */
export interface StoredFile extends FileMeta {
  businessId: string;
  /** The backend holding the bytes; null: still in the database (a row from before migration 0030). */
  store: Backend | null;
  /** With store null: null for inline content, else the size of every chunk but the last. */
  chunkSize: number | null;
}

/** Bytes now in a store, about to be named by a row. */
export interface StoredObject {
  sha256: string;
  size: number;
  backend: Backend;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const META = sql`id, name, mime, size, sha256, created_at`;
const STORED = sql`${META}, business_id, store, chunk_size`;

function toMeta(r: Record<string, unknown>): FileMeta {
  return {
    id: String(r.id),
    name: String(r.name),
    mime: String(r.mime),
    size: Number(r.size),
    sha256: String(r.sha256),
    createdAt: iso(r.created_at),
  };
}

function toStored(r: Record<string, unknown>): StoredFile {
  return {
    ...toMeta(r),
    businessId: String(r.business_id),
    store: r.store == null ? null : (String(r.store) as Backend),
    chunkSize: r.chunk_size == null ? null : Number(r.chunk_size),
  };
}

/** Puts bytes held in memory (a PDF, a logo) into the store. */
export async function putBytes(store: FileStore, bytes: Uint8Array): Promise<StoredObject> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sha256 = sha256Hex(buffer);
  await store.putBytes(sha256, buffer);
  return { sha256, size: buffer.length, backend: store.backend };
}

/** Commits a spool (an upload already checked) into the store. */
export async function putSpool(store: FileStore, spool: Spool): Promise<StoredObject> {
  try {
    await store.putSpool(spool);
  } finally {
    await discardSpool(spool);
  }
  return { sha256: spool.sha256, size: spool.size, backend: store.backend };
}

/**
 * Puts a stream of bytes into the store without holding it: spooled to local disk while it is hashed (the
 * key is the hash), then committed. Past `maxBytes` it stops reading and throws SpoolTooLarge.
 */
export async function putStream(
  store: FileStore,
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  opts: { maxBytes?: number } = {},
): Promise<StoredObject> {
  return putSpool(store, await spoolStream(source, { dir: store.spoolDir, maxBytes: opts.maxBytes }));
}

/** putStream from a file on disk (an export zip, a backup). */
export function putPath(store: FileStore, path: string): Promise<StoredObject> {
  return putStream(store, createReadStream(path, { highWaterMark: 1 << 20 }));
}

interface NewFile {
  businessId: string;
  mime: string;
  name: string;
}

/**
 * The row of an object already put: in the caller's transaction, once per business and content. The same
 * content recorded again answers the existing row with `existed: true` (the object is the same one).
 */
export async function recordFile(tx: Executor, at: Date, f: NewFile & { object: StoredObject }): Promise<FileMeta & { existed: boolean }> {
  const { sha256, size, backend } = f.object;
  const inserted = await queryOne<Record<string, unknown>>(
    tx,
    sql`${insertInto(files, { id: newId('file', at.getTime()), businessId: f.businessId, sha256, mime: f.mime, size, name: f.name, store: backend, createdAt: at })}
        ON CONFLICT (business_id, sha256) DO NOTHING
        RETURNING ${META}`,
  );
  if (inserted) return { ...toMeta(inserted), existed: false };
  const existing = await queryOne<Record<string, unknown>>(tx, sql`SELECT ${META} FROM files WHERE business_id = ${f.businessId} AND sha256 = ${sha256}`);
  return { ...toMeta(existing!), existed: true };
}

/**
 * The store of each database handle, for callers that pass only the handle to storeFile (documents/issue.ts
 * stores a logo given at issue with the database's `db`): bound once by createServices. A transaction is not
 * a bound handle: inside one, pass `store`.
 */
const storesOfHandles = new WeakMap<object, FileStore>();

export function bindFileStore(db: Executor, store: FileStore): void {
  storesOfHandles.set(db, store);
}

/**
 * Puts small bytes into the store, then records the row (put + recordFile). `store` defaults to the one bound
 * to `ex`; without either this throws rather than keep the bytes anywhere else.
 */
export async function storeFile(ex: Executor, at: Date, f: NewFile & { bytes: Uint8Array; store?: FileStore }): Promise<FileMeta & { existed: boolean }> {
  const store = f.store ?? storesOfHandles.get(ex);
  if (!store) throw new Error('storeFile: no file store for this database handle (pass `store`)');
  return recordFile(ex, at, { ...f, object: await putBytes(store, f.bytes) });
}

export async function fileMeta(ex: Executor, businessId: string, fileId: string): Promise<FileMeta | undefined> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT ${META} FROM files WHERE id = ${fileId} AND business_id = ${businessId}`);
  return r ? toMeta(r) : undefined;
}

/** The row of a file, without its bytes. */
export async function storedFile(ex: Executor, fileId: string): Promise<StoredFile | undefined> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT ${STORED} FROM files WHERE id = ${fileId}`);
  return r ? toStored(r) : undefined;
}
