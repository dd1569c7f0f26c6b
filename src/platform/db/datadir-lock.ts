import { closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { processAlive as alive } from './process-alive.ts';

/** Who owns the embedded cluster: the server, or a CLI command that started it because no server ran. */
export type LockRole = 'server' | 'cli';

export interface LockHolder {
  pid: number;
  role: LockRole;
  since: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `pinkas is already running on the data folder ${dataDir} (process ${holder.pid}, a ${holder.role === 'server' ? 'server' : 'CLI command'} started ${holder.since}). ` +
        'One embedded cluster serves one server process, so this one refuses to start. Stop the other process first, or point DATA_DIR elsewhere; ' +
        'to run several server processes, give them all one PostgreSQL with DATABASE_URL and SANDBOX_DATABASE_URL.',
    );
    this.name = 'DataDirLockedError';
  }
}

const lockFile = (dataDir: string) => path.join(dataDir, 'pinkas.lock');

function readHolder(file: string): LockHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    const pid = Number(parsed.pid);
    if (!Number.isInteger(pid) || pid <= 0) return null;
    return { pid, role: parsed.role === 'cli' ? 'cli' : 'server', since: String(parsed.since ?? '') };
  } catch {
    return null;
  }
}

/** The live process holding the data folder, or null (no lock, or one left by a dead process). */
export function dataDirHolder(dataDir: string): LockHolder | null {
  const holder = readHolder(lockFile(dataDir));
  return holder && holder.pid !== process.pid && alive(holder.pid) ? holder : null;
}

const heldHere = new Set<string>();

/**
 * Takes the exclusive lock of an embedded data folder: a file created with O_EXCL holding our pid
 * and role. A lock left by a dead process is taken over. Returns the release function.
 */
export function lockDataDir(dataDir: string, role: LockRole = 'server'): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = lockFile(dataDir);
  if (heldHere.has(file)) throw new DataDirLockedError(dataDir, { pid: process.pid, role, since: 'in this process' });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, role, since: new Date().toISOString() }));
      closeSync(fd);
      heldHere.add(file);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        heldHere.delete(file);
        if (readHolder(file)?.pid === process.pid) {
          try {
            unlinkSync(file);
          } catch {
            /* already gone */
          }
        }
        process.off('exit', release);
      };
      process.on('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readHolder(file);
      if (holder !== null && holder.pid !== process.pid && alive(holder.pid)) throw new DataDirLockedError(dataDir, holder);
      // A dead holder, or our own pid left from before a restart: stale. Move it aside atomically, then retry.
      try {
        renameSync(file, `${file}.stale-${process.pid}`);
        unlinkSync(`${file}.stale-${process.pid}`);
      } catch {
        /* someone else moved it; retry */
      }
    }
  }
  throw new Error(`could not take the lock of ${dataDir}`);
}
