import type { Readable } from 'node:stream';
import type { Spool } from './spool.ts';

/** Where a file's bytes are: `fs` (a folder on this machine) or `s3` (an S3-compatible bucket); files.store names it. */
export const BACKENDS = ['fs', 's3'] as const;
export type Backend = (typeof BACKENDS)[number];

/** One object of a store, as listed. */
export interface ObjectInfo {
  sha256: string;
  size: number;
  modifiedAt: Date;
}

/**
 * The bytes of stored files, content-addressed by sha256: one object per distinct content in a database mode
 * (live and sandbox never share a folder or a key prefix). A store only moves bytes; the `files` row holds
 * the metadata and the sha256 every read is checked against (platform/files.ts). Writers put the object
 * first and commit the row after, so a row never names a missing object; a crash between the two leaves an
 * orphan for the sweep (sweep.ts).
 */
export interface FileStore {
  readonly backend: Backend;
  /** The folder, or s3://bucket/prefix: for messages and logs. */
  readonly location: string;
  /** Where a write is spooled before it is committed (on disk: the store's own file system, so committing is a rename). */
  readonly spoolDir: string;
  /** Makes a spooled file the object of its sha256, durably; the spool is consumed. Replacing an object refreshes its age. */
  putSpool(spool: Spool): Promise<void>;
  /** The same for bytes in memory (a PDF, a logo). */
  putBytes(sha256: string, bytes: Buffer): Promise<void>;
  /**
   * The object's bytes, whole or `range` (inclusive offsets), as they are: unchecked (the caller checks them
   * against the row's sha256). ObjectMissing when there is none.
   */
  read(sha256: string, range?: { start: number; end: number }): Promise<Readable>;
  /** Null when there is no such object. */
  stat(sha256: string): Promise<ObjectInfo | null>;
  /** Every object of this store (its mode). */
  list(): AsyncIterable<ObjectInfo>;
  /**
   * Removes the object unless it was written at or after `olderThan`: the sweep's last check, so a writer
   * that has just put the same content again keeps it. Answers whether it was removed.
   */
  removeIfOlder(sha256: string, olderThan: Date): Promise<boolean>;
  /** Removes spools older than `olderThan` (a write that crashed before committing); answers how many. */
  sweepSpools(olderThan: Date): Promise<number>;
  /** Fails (with the reason) unless the store can be written and read now: at start, and before a CLI walk. */
  check(): Promise<void>;
}

export class ObjectMissing extends Error {
  constructor(
    readonly sha256: string,
    where: string,
  ) {
    super(`object ${sha256} is missing from ${where}`);
    this.name = 'ObjectMissing';
  }
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;
