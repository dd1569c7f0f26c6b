import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/** How much of a spooled file's start and end is kept in memory, for checks of its type without reading it again. */
const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 1024;

/**
 * A file written to local disk while its sha256 was computed, not yet an object of a store: the step
 * between a stream whose content (and so whose key) is unknown and a content-addressed put.
 */
export interface Spool {
  path: string;
  sha256: string;
  size: number;
  /** The first 64 KiB (all of a smaller file). */
  head: Buffer;
  /** The last 1 KiB. */
  tail: Buffer;
}

export class SpoolTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
    this.name = 'SpoolTooLarge';
  }
}

const asBuffer = (c: Uint8Array) => Buffer.from(c.buffer, c.byteOffset, c.byteLength);

/**
 * Writes `source` into a new file of `dir`, hashing and counting as it goes, and fsyncs it. Past
 * `maxBytes` it stops reading, removes what it wrote and throws SpoolTooLarge: the limit holds while
 * the bytes arrive, not after they were all taken. Holds one piece of the source in memory at a time.
 */
export async function spoolStream(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, opts: { dir: string; maxBytes?: number }): Promise<Spool> {
  await mkdir(opts.dir, { recursive: true });
  const file = path.join(opts.dir, `${randomBytes(12).toString('hex')}.spool`);
  const handle = await open(file, 'wx', 0o600);
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let headSize = 0;
  let tail = Buffer.alloc(0);
  let size = 0;
  try {
    for await (const piece of source) {
      const bytes = asBuffer(piece);
      size += bytes.length;
      if (opts.maxBytes !== undefined && size > opts.maxBytes) throw new SpoolTooLarge(opts.maxBytes);
      hash.update(bytes);
      if (headSize < HEAD_BYTES) {
        // Copies: the source may reuse its buffers.
        const part = Buffer.from(bytes.subarray(0, HEAD_BYTES - headSize));
        head.push(part);
        headSize += part.length;
      }
      tail = Buffer.from(bytes.length >= TAIL_BYTES ? bytes.subarray(bytes.length - TAIL_BYTES) : Buffer.concat([tail, bytes]).subarray(-TAIL_BYTES));
      for (let at = 0; at < bytes.length;) at += (await handle.write(bytes, at, bytes.length - at)).bytesWritten;
    }
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(file, { force: true });
    throw err;
  }
  await handle.close();
  return { path: file, sha256: hash.digest('hex'), size, head: Buffer.concat(head, headSize), tail };
}

/** Removes a spool that will not be committed (a refused upload, a failed write); one already committed is gone and ignored. */
export async function discardSpool(spool: Spool): Promise<void> {
  await rm(spool.path, { force: true });
}

/** Removes the files of `dir` last written before `olderThan` (spools and set-aside objects a crash left); a missing folder has none. */
export async function removeStaleFiles(dir: string, olderThan: Date): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  let removed = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    const s = await stat(file).catch(() => null);
    if (s && s.mtime < olderThan) {
      await rm(file, { force: true });
      removed++;
    }
  }
  return removed;
}
