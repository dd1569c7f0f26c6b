import { closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string, readonly holderPid: number) {
    super(
      `the data folder ${dataDir} is in use by process ${holderPid}. ` +
        'Two processes on one embedded database silently lose data, so this one refuses to start. ' +
        'Stop the other process (the server, or a running CLI command) first, or point DATA_DIR elsewhere.',
    );
    this.name = 'DataDirLockedError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): number | null {
  try {
    const pid = Number(JSON.parse(readFileSync(file, 'utf8')).pid);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Takes the exclusive lock of an embedded data folder: a file created with O_EXCL holding our pid.
 * A lock left by a dead process is taken over. Returns the release function.
 */
const heldHere = new Set<string>();

export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'pinkas.lock');
  if (heldHere.has(file)) throw new DataDirLockedError(dataDir, process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }));
      closeSync(fd);
      heldHere.add(file);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        heldHere.delete(file);
        if (readHolder(file) === process.pid) {
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
      if (holder !== null && holder !== process.pid && alive(holder)) throw new DataDirLockedError(dataDir, holder);
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
