import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { Database, Db, Mode } from './db/engine.ts';
import { queryOne } from './db/sql.ts';
import type { Clock } from './clock.ts';
import type { Logger } from './logger.ts';
import { AppError } from './errors.ts';
import { appendAudit } from './audit.ts';
import { storedFile, type StoredFile } from './files.ts';
import { ObjectMissing } from './file-store/store.ts';
import type { FileStores } from './file-store/stores.ts';
import { discardSpool, spoolStream, SpoolTooLarge } from './file-store/spool.ts';

/**
 * Reading stored files, every byte checked against the row's sha256 (issue 31). A file whose bytes do not
 * hash to it, are missing or have another size is never served: the read answers 500 `internal`, and the
 * failure is logged and written to the business's audit chain (`file.integrity_failed`).
 */

/** What a read needs: the database (for rows and the audit), the mode's stores, the log and the clock. */
export interface FileReading {
  db: Db;
  stores: FileStores;
  logger: Logger;
  clock: Clock;
}

export function fileReading(s: { fileStores: Record<Mode, FileStores>; logger: Logger; clock: Clock }, database: Database): FileReading {
  return { db: database.db, stores: s.fileStores[database.mode], logger: s.logger, clock: s.clock };
}

/** Files up to this size are read whole into memory and checked there; larger ones are checked in a local spool. */
export const IN_MEMORY_MAX = 8 * 1024 * 1024;

const asBuffer = (c: Uint8Array) => Buffer.from(c.buffer, c.byteOffset, c.byteLength);

/** Bytes that are not there: a missing chunk of a file kept in the database. */
class MissingBytes extends Error {}

async function* fromStore(r: FileReading, file: StoredFile, from: number): AsyncGenerator<Buffer> {
  if (from >= file.size && from > 0) return;
  const store = r.stores.of(file.store!);
  const stream = await store.read(file.sha256, from > 0 ? { start: from, end: file.size - 1 } : undefined);
  for await (const piece of stream) yield asBuffer(piece as Uint8Array);
}

/**
 * The bytes of a file still in the database (a row from before migration 0030), a chunk at a time. `pinkas
 * files migrate` may move them out while they are read: content or a chunk found gone, the row is read again
 * and, moved, the rest comes from the store (a range read from where the database left off).
 */
async function* fromDatabase(r: FileReading, file: StoredFile): AsyncGenerator<Buffer> {
  const moved = async (from: number) => {
    const now = await storedFile(r.db, file.id);
    return now?.store ? fromStore(r, now, from) : null;
  };
  if (file.chunkSize === null) {
    const row = await queryOne<{ content: Uint8Array | null }>(r.db, sql`SELECT content FROM files WHERE id = ${file.id}`);
    if (row?.content != null) return yield asBuffer(row.content);
    const rest = await moved(0);
    if (!rest) throw new MissingBytes('its content is gone');
    return yield* rest;
  }
  const count = Math.ceil(file.size / file.chunkSize);
  for (let n = 0; n < count; n++) {
    const c = await queryOne<{ bytes: Uint8Array }>(r.db, sql`SELECT bytes FROM file_chunks WHERE file_id = ${file.id} AND n = ${n}`);
    if (!c) {
      const rest = await moved(n * file.chunkSize);
      if (!rest) throw new MissingBytes(`chunk ${n} is missing`);
      return yield* rest;
    }
    yield asBuffer(c.bytes);
  }
}

/** The bytes as found, unchecked. */
function rawBytes(r: FileReading, file: StoredFile): AsyncGenerator<Buffer> {
  return file.store ? fromStore(r, file, 0) : fromDatabase(r, file);
}

/** Logs and audits a file that failed its check, and answers the error to throw. */
async function refused(r: FileReading, file: StoredFile, found: { sha256: string | null; size: number | null; problem: string }): Promise<AppError> {
  const where = file.store ?? 'database';
  r.logger.error(
    { fileId: file.id, businessId: file.businessId, store: where, expected: file.sha256, ...found },
    'stored file failed its integrity check: not served',
  );
  try {
    await r.db.transaction((tx) =>
      appendAudit(
        tx,
        { at: r.clock.now(), actor: { accountId: null, keyId: null } },
        {
          businessId: file.businessId,
          action: 'file.integrity_failed',
          entityType: 'file',
          entityId: file.id,
          after: { store: where, expected: { sha256: file.sha256, size: file.size }, found },
        },
      ),
    );
  } catch (err) {
    r.logger.error({ fileId: file.id, err: (err as Error).message }, 'the integrity failure could not be written to the audit trail');
  }
  return new AppError('internal', `stored file ${file.id} failed its integrity check and is not served; it was logged`);
}

const absent = (err: unknown) => err instanceof ObjectMissing || err instanceof MissingBytes;

/** The problem of bytes read in full, or null when they are the file. */
function mismatch(file: StoredFile, sha256: string, size: number): string | null {
  if (size !== file.size) return `${size} bytes, not ${file.size}`;
  return sha256 === file.sha256 ? null : 'the bytes do not hash to the sha256 of the file';
}

/**
 * The bytes of a file as it streams, hashed as they pass; a mismatch is found (and reported) after the last
 * byte went by. Only for consumers that throw away what they received when the stream fails (a backup
 * being written, a verification walk), never for an answer to a client.
 */
export async function* checkedBytes(r: FileReading, file: StoredFile): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const piece of rawBytes(r, file)) {
      hash.update(piece);
      size += piece.length;
      yield piece;
    }
  } catch (err) {
    if (absent(err)) throw await refused(r, file, { sha256: null, size: null, problem: (err as Error).message });
    throw err;
  }
  const sha256 = hash.digest('hex');
  const problem = mismatch(file, sha256, size);
  if (problem) throw await refused(r, file, { sha256, size, problem });
}

/** A file's bytes whole in memory, checked: for the small ones (PDFs, logos, receipts). Undefined when no row. */
export async function readFile(r: FileReading, fileId: string): Promise<(StoredFile & { content: Buffer }) | undefined> {
  const file = await storedFile(r.db, fileId);
  if (!file) return undefined;
  return { ...file, content: await checkedInMemory(r, file) };
}

async function checkedInMemory(r: FileReading, file: StoredFile): Promise<Buffer> {
  const parts: Buffer[] = [];
  try {
    for await (const piece of rawBytes(r, file)) parts.push(piece);
  } catch (err) {
    if (absent(err)) throw await refused(r, file, { sha256: null, size: null, problem: (err as Error).message });
    throw err;
  }
  const content = Buffer.concat(parts);
  const sha256 = createHash('sha256').update(content).digest('hex');
  const problem = mismatch(file, sha256, content.length);
  if (problem) throw await refused(r, file, { sha256, size: content.length, problem });
  return content;
}

/**
 * A file's bytes for an answer, checked before the first byte is sent, in bounded memory. Up to IN_MEMORY_MAX
 * they are read into memory and hashed there. A larger file (an export or backup zip) is copied to a local
 * spool while hashed, and sent from the spool only when it matched: hashing while sending would have sent
 * altered bytes before the mismatch showed, and hashing the store's object first and then reading it again
 * would send whatever the second read returned. The spool is removed once the answer stream closes.
 */
export async function openFile(r: FileReading, file: StoredFile): Promise<Buffer | Readable> {
  if (file.size <= IN_MEMORY_MAX) return checkedInMemory(r, file);
  let spool;
  try {
    spool = await spoolStream(rawBytes(r, file), { dir: r.stores.current.spoolDir, maxBytes: file.size + 1 });
  } catch (err) {
    if (absent(err)) throw await refused(r, file, { sha256: null, size: null, problem: (err as Error).message });
    if (err instanceof SpoolTooLarge) throw await refused(r, file, { sha256: null, size: null, problem: `more than ${file.size} bytes` });
    throw err;
  }
  const problem = mismatch(file, spool.sha256, spool.size);
  if (problem) {
    await discardSpool(spool);
    throw await refused(r, file, { sha256: spool.sha256, size: spool.size, problem });
  }
  const stream = createReadStream(spool.path, { highWaterMark: 256 * 1024 });
  stream.once('close', () => void rm(spool.path, { force: true }));
  return stream;
}
