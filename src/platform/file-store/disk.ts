import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { chmod, mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Readable } from 'node:stream';
import { ObjectMissing, SHA256_HEX, type FileStore, type ObjectInfo } from './store.ts';
import { removeStaleFiles, type Spool } from './spool.ts';

const isMissing = (err: unknown) => (err as { code?: string }).code === 'ENOENT';

// An object's writes go through plain file descriptors, not FileHandles: the same system calls, with 13–23% less of
// the event loop a put (`npm run bench -- files`, part 4; docs/benchmarks.md).
const openFd = promisify(fs.open);
const writeFd = promisify(fs.write);
const fsyncFd = promisify(fs.fsync);
const closeFd = promisify(fs.close);

/** fsync of a folder: makes a rename into it durable (the new name survives a power cut). */
async function syncDir(dir: string): Promise<void> {
  const fd = await openFd(dir, 'r');
  try {
    await fsyncFd(fd);
  } finally {
    await closeFd(fd);
  }
}

/**
 * Runs `op`, and when a folder it needs is missing (the first write into it, or one removed since) creates `dir`
 * and runs it again. Cheaper than creating the folder before every write: a recursive mkdir of a folder that
 * exists was half of a stored PDF pair's CPU (the thread pool's calls and the kernel's).
 */
async function inFolder<T>(dir: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (!isMissing(err)) throw err;
    await mkdir(dir, { recursive: true });
    return op();
  }
}

/**
 * The disk store: one folder per database mode, objects at `<root>/<first two hex digits>/<sha256>`.
 * A write goes to `<root>/.spool/`, is fsynced, then renamed into place (atomic on one file system) and
 * the folder fsynced, so a reader sees a whole object or none and a committed row's object survives a crash.
 * Objects are read-only (0444) files: nothing here ever writes one in place.
 */
export class DiskFileStore implements FileStore {
  readonly backend = 'fs' as const;
  readonly spoolDir: string;
  private readonly trashDir: string;

  constructor(readonly location: string) {
    this.spoolDir = path.join(location, '.spool');
    this.trashDir = path.join(location, '.trash');
  }

  private pathOf(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return path.join(this.location, sha256.slice(0, 2), sha256);
  }

  async putSpool(spool: Spool): Promise<void> {
    await chmod(spool.path, 0o444);
    await this.commit(spool.path, spool.sha256);
  }

  /** Renames a written, fsynced, read-only file into place and makes the new name durable. */
  private async commit(file: string, sha256: string): Promise<void> {
    const target = this.pathOf(sha256);
    await inFolder(path.dirname(target), () => rename(file, target));
    await syncDir(path.dirname(target));
  }

  async putBytes(sha256: string, bytes: Buffer): Promise<void> {
    const temp = path.join(this.spoolDir, `${randomBytes(12).toString('hex')}.spool`);
    // Created read-only: this descriptor still writes it, and it needs no chmod before the rename.
    const fd = await inFolder(this.spoolDir, () => openFd(temp, 'wx', 0o444));
    try {
      for (let at = 0; at < bytes.length;) at += (await writeFd(fd, bytes, at, bytes.length - at, null)).bytesWritten;
      await fsyncFd(fd);
    } catch (err) {
      await closeFd(fd);
      await rm(temp, { force: true });
      throw err;
    }
    await closeFd(fd);
    await this.commit(temp, sha256);
  }

  async read(sha256: string, range?: { start: number; end: number }): Promise<Readable> {
    let handle: FileHandle;
    try {
      // Opened first, so that a missing object is an error here rather than in the middle of a stream.
      handle = await open(this.pathOf(sha256), 'r');
    } catch (err) {
      if (isMissing(err)) throw new ObjectMissing(sha256, this.location);
      throw err;
    }
    return fs.createReadStream('', { fd: handle, start: range?.start, end: range?.end, highWaterMark: 256 * 1024 });
  }

  async stat(sha256: string): Promise<ObjectInfo | null> {
    try {
      const s = await stat(this.pathOf(sha256));
      return { sha256, size: s.size, modifiedAt: s.mtime };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async *list(): AsyncGenerator<ObjectInfo> {
    let shards: string[];
    try {
      shards = (await readdir(this.location)).filter((d) => /^[0-9a-f]{2}$/.test(d)).sort();
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    for (const shard of shards) {
      for (const name of (await readdir(path.join(this.location, shard))).sort()) {
        if (!SHA256_HEX.test(name) || name.slice(0, 2) !== shard) continue;
        const info = await this.stat(name);
        if (info) yield info;
      }
    }
  }

  /**
   * Moves the object aside (an atomic rename), then looks at what was moved: written before `olderThan`, it is
   * deleted; written since (a writer put the same content again just now), it goes back. A writer that puts
   * after the move writes a new file at the object's name, which stays.
   */
  async removeIfOlder(sha256: string, olderThan: Date): Promise<boolean> {
    const target = this.pathOf(sha256);
    await mkdir(this.trashDir, { recursive: true });
    const aside = path.join(this.trashDir, `${sha256}.${randomBytes(6).toString('hex')}`);
    try {
      await rename(target, aside);
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
    if ((await stat(aside)).mtime >= olderThan) {
      // Back, unless a writer has put the same content there meanwhile.
      if (await this.stat(sha256)) await rm(aside, { force: true });
      else await rename(aside, target);
      return false;
    }
    await rm(aside, { force: true });
    return true;
  }

  async sweepSpools(olderThan: Date): Promise<number> {
    return (await removeStaleFiles(this.spoolDir, olderThan)) + (await removeStaleFiles(this.trashDir, olderThan));
  }

  async check(): Promise<void> {
    try {
      await mkdir(this.spoolDir, { recursive: true });
      const probe = path.join(this.spoolDir, `check-${randomBytes(6).toString('hex')}`);
      const handle = await open(probe, 'wx', 0o600);
      await handle.close();
      await rm(probe);
    } catch (err) {
      throw new Error(`the file store ${this.location} cannot be written: ${(err as Error).message}`);
    }
  }
}
