import path from 'node:path';
import type { FilesConfig } from '../config-files.ts';
import type { Mode } from '../db/engine.ts';
import { DiskFileStore } from './disk.ts';
import { s3Client, S3FileStore } from './s3.ts';
import type { Backend, FileStore } from './store.ts';

/**
 * The stores of one database mode: `current` takes new files (the bucket when FILES_S3_BUCKET is set, else the
 * disk); a row names the backend its bytes went to, and `of` finds it, so files written to disk before a bucket
 * was configured are still read (and `pinkas files migrate` moves them over).
 */
export class FileStores {
  constructor(
    readonly current: FileStore,
    private readonly byBackend: Partial<Record<Backend, FileStore>>,
  ) {}

  of(backend: Backend): FileStore {
    const store = this.byBackend[backend];
    // A row in a bucket no longer configured: nothing here can read it, and saying so beats a 404.
    if (!store) throw new Error(`a file is stored in the ${backend} store, which is not configured on this server (FILES_S3_BUCKET)`);
    return store;
  }

  all(): FileStore[] {
    return Object.values(this.byBackend);
  }
}

export function createFileStores(config: FilesConfig): Record<Mode, FileStores> {
  const client = config.s3 ? s3Client(config.s3) : null;
  const forMode = (mode: Mode) => {
    const disk = new DiskFileStore(path.join(config.dir, mode));
    if (!config.s3 || !client) return new FileStores(disk, { fs: disk });
    const s3 = new S3FileStore(client, config.s3, mode, disk.spoolDir);
    return new FileStores(s3, { fs: disk, s3 });
  };
  return { live: forMode('live'), sandbox: forMode('sandbox') };
}
