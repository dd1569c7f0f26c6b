import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { sql } from 'drizzle-orm';
import type { Db, Executor } from './db/engine.ts';
import { iso, queryOne } from './db/sql.ts';
import { insertInto } from './db/insert-values.ts';
import { files } from './db/tables.ts';
import { newId } from './ids.ts';

/**
 * Stored files. Content-addressed per business (one row per distinct sha256). A file up to
 * CHUNK_SIZE bytes keeps its content inline in `files.content`; a larger one keeps its `files` row
 * (content NULL, chunk_size set) and its bytes in `file_chunks` rows 0..n-1 (migration 0012), so it
 * is written and read a chunk at a time and never held whole.
 */
export const CHUNK_SIZE = 1 << 20;

export interface FileMeta {
  id: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
  createdAt: string;
}

/** A file's row without its bytes: whose it is, and whether its content is chunked. */
export interface StoredFile extends FileMeta {
  businessId: string;
  /** null: inline content; otherwise the size of every chunk but the last. */
  chunkSize: number | null;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const META = sql`id, name, mime, size, sha256, created_at`;

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

const asBuffer = (c: Uint8Array) => Buffer.from(c.buffer, c.byteOffset, c.byteLength);

interface NewFile {
  businessId: string;
  mime: string;
  name: string;
}

async function existingFile(ex: Executor, businessId: string, sha: string): Promise<FileMeta & { existed: boolean }> {
  const existing = await queryOne<Record<string, unknown>>(ex, sql`SELECT ${META} FROM files WHERE business_id = ${businessId} AND sha256 = ${sha}`);
  return { ...toMeta(existing!), existed: true };
}

async function storeInline(tx: Executor, at: Date, f: NewFile, bytes: Uint8Array): Promise<FileMeta & { existed: boolean }> {
  const sha = sha256Hex(bytes);
  const inserted = await queryOne<Record<string, unknown>>(
    tx,
    sql`${insertInto(files, {
      id: newId('file', at.getTime()),
      businessId: f.businessId,
      sha256: sha,
      mime: f.mime,
      size: bytes.length,
      name: f.name,
      content: Buffer.from(bytes),
      createdAt: at,
    })}
        ON CONFLICT (business_id, sha256) DO NOTHING
        RETURNING ${META}`,
  );
  if (inserted) return { ...toMeta(inserted), existed: false };
  return existingFile(tx, f.businessId, sha);
}

/** Re-cuts any stream of byte chunks into chunks of exactly `size` bytes (the last one shorter). */
async function* rechunk(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, size: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let held = 0;
  for await (const piece of source) {
    let p = asBuffer(piece);
    while (held + p.length >= size) {
      const take = size - held;
      parts.push(p.subarray(0, take));
      yield parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
      parts = [];
      held = 0;
      p = p.subarray(take);
    }
    if (p.length) {
      // A copy: the source may reuse its buffer for the next piece.
      parts.push(Buffer.from(p));
      held += p.length;
    }
  }
  if (held) yield Buffer.concat(parts, held);
}

class AlreadyStored extends Error {}

/**
 * Stores a stream of bytes (an async iterable: a file read stream, a generator) inside the
 * caller's transaction, computing the sha256 as it goes. Content of up to one chunk is stored
 * inline as storeFile does; larger content is written a chunk at a time into file_chunks (in a
 * savepoint of the caller's transaction), then its `files` row. The same content stored again
 * answers the existing file with `existed: true` (the chunks just written are rolled back).
 * Holds at most about two chunks in memory.
 */
export async function storeFileStream(
  tx: Executor,
  at: Date,
  f: NewFile & { source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>; chunkSize?: number },
): Promise<FileMeta & { existed: boolean }> {
  const chunkSize = f.chunkSize ?? CHUNK_SIZE;
  const chunks = rechunk(f.source, chunkSize)[Symbol.asyncIterator]();
  const first = await chunks.next();
  if (first.done) return storeInline(tx, at, f, Buffer.alloc(0));
  const second = await chunks.next();
  if (second.done) return storeInline(tx, at, f, first.value);
  const hash = createHash('sha256');
  let sha = '';
  try {
    return await (tx as Db).transaction(async (sp) => {
      const id = newId('file', at.getTime());
      let n = 0;
      let size = 0;
      const put = async (bytes: Buffer) => {
        hash.update(bytes);
        size += bytes.length;
        await sp.execute(sql`INSERT INTO file_chunks(file_id, business_id, n, bytes) VALUES (${id}, ${f.businessId}, ${n++}, ${bytes})`);
      };
      await put(first.value);
      await put(second.value);
      for (let c = await chunks.next(); !c.done; c = await chunks.next()) await put(c.value);
      sha = hash.digest('hex');
      const inserted = await queryOne<Record<string, unknown>>(
        sp,
        sql`${insertInto(files, { id, businessId: f.businessId, sha256: sha, mime: f.mime, size, name: f.name, content: null, chunkSize, createdAt: at })}
            ON CONFLICT (business_id, sha256) DO NOTHING
            RETURNING ${META}`,
      );
      if (!inserted) throw new AlreadyStored();
      return { ...toMeta(inserted), existed: false };
    });
  } catch (err) {
    if (err instanceof AlreadyStored) return existingFile(tx, f.businessId, sha);
    throw err;
  }
}

/** storeFileStream from a file on disk, read a chunk at a time. */
export function storeFileFromPath(tx: Executor, at: Date, f: NewFile & { path: string; chunkSize?: number }): Promise<FileMeta & { existed: boolean }> {
  const chunkSize = f.chunkSize ?? CHUNK_SIZE;
  return storeFileStream(tx, at, { ...f, chunkSize, source: createReadStream(f.path, { highWaterMark: chunkSize }) });
}

/**
 * Stores bytes once per business (content-addressed by sha256). Storing the same content again
 * answers the existing file with `existed: true`. Content larger than one chunk is stored chunked.
 */
export async function storeFile(
  tx: Executor,
  at: Date,
  f: { businessId: string; bytes: Uint8Array; mime: string; name: string },
): Promise<FileMeta & { existed: boolean }> {
  if (f.bytes.length <= CHUNK_SIZE) return storeInline(tx, at, f, f.bytes);
  return storeFileStream(tx, at, { ...f, source: [f.bytes] });
}

export async function fileMeta(ex: Executor, businessId: string, fileId: string): Promise<FileMeta | undefined> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT ${META} FROM files WHERE id = ${fileId} AND business_id = ${businessId}`);
  return r ? toMeta(r) : undefined;
}

/** The row of a file, without reading its bytes. */
export async function storedFile(ex: Executor, fileId: string): Promise<StoredFile | undefined> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT ${META}, business_id, chunk_size FROM files WHERE id = ${fileId}`);
  return r ? { ...toMeta(r), businessId: String(r.business_id), chunkSize: r.chunk_size == null ? null : Number(r.chunk_size) } : undefined;
}

/**
 * The bytes of a file, a chunk at a time (inline content: one piece). Every chunk is read by its
 * own short statement; a missing or mis-sized chunk, or content that does not hash to the file's
 * sha256, fails the stream (after what was already yielded: a download then ends broken).
 */
export async function* fileStream(ex: Executor, fileId: string): AsyncGenerator<Buffer> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT size, sha256, chunk_size, content FROM files WHERE id = ${fileId}`);
  if (!r) throw new Error(`file ${fileId} does not exist`);
  if (r.chunk_size == null) {
    yield asBuffer(r.content as Uint8Array);
    return;
  }
  const size = Number(r.size);
  const chunkSize = Number(r.chunk_size);
  const count = Math.ceil(size / chunkSize);
  const hash = createHash('sha256');
  for (let n = 0; n < count; n++) {
    const c = await queryOne<{ bytes: Uint8Array }>(ex, sql`SELECT bytes FROM file_chunks WHERE file_id = ${fileId} AND n = ${n}`);
    const expected = n === count - 1 ? size - n * chunkSize : chunkSize;
    if (!c || c.bytes.length !== expected) throw new Error(`file ${fileId}: chunk ${n} is ${c ? `${c.bytes.length} bytes, not ${expected}` : 'missing'}`);
    const bytes = asBuffer(c.bytes);
    hash.update(bytes);
    yield bytes;
  }
  if (hash.digest('hex') !== String(r.sha256)) throw new Error(`file ${fileId}: the chunks do not hash to the file's sha256`);
}

/**
 * A file with its whole content in memory: for small consumers (logos, PDFs, receipts, backups).
 * A chunked file is assembled; large ones should be read with fileStream.
 */
export async function fileContent(ex: Executor, fileId: string): Promise<(StoredFile & { content: Buffer }) | undefined> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT ${META}, business_id, chunk_size, content FROM files WHERE id = ${fileId}`);
  if (!r) return undefined;
  const f: StoredFile = { ...toMeta(r), businessId: String(r.business_id), chunkSize: r.chunk_size == null ? null : Number(r.chunk_size) };
  if (f.chunkSize === null) return { ...f, content: asBuffer(r.content as Uint8Array) };
  const parts: Buffer[] = [];
  for await (const c of fileStream(ex, fileId)) parts.push(c);
  return { ...f, content: Buffer.concat(parts, f.size) };
}
