import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, chmodSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

/**
 * Everything a run leaves on disk lives under one folder. The global setup points TMPDIR at it before any
 * worker starts, so the test files' temporary folders, the servers and CLIs they start, those servers'
 * embedded PostgreSQL clusters and the export work folders all land there (os.tmpdir() reads TMPDIR, and
 * every child inherits it). On the way out, finished or interrupted (Ctrl-C), every process that inherited
 * that TMPDIR is stopped and the folder removed: nothing of the run outlives it.
 */
export function openRunDir(): { dir: string; cleanUp: () => void } {
  const outer = tmpdir();
  const dir = mkdtempSync(path.join(outer, 'pinkas-test-run-'));
  // Readable by the unprivileged user PostgreSQL runs as under root.
  chmodSync(dir, 0o755);
  // tsx keeps its compile cache under the temporary folder: the run shares the machine's, warm from earlier runs.
  const tsxCache = `tsx-${userInfo().uid}`;
  mkdirSync(path.join(outer, tsxCache), { recursive: true });
  symlinkSync(path.join(outer, tsxCache), path.join(dir, tsxCache));
  process.env.TMPDIR = dir;
  let cleaned = false;
  const cleanUp = () => {
    if (cleaned) return;
    cleaned = true;
    removeRun(dir);
  };
  process.once('exit', cleanUp);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // Interrupted: Vitest's own workers go too (one may be left running a file, its parent gone).
    process.once(signal, () => {
      cleaned = true;
      removeRun(dir, { workersToo: true });
      process.kill(process.pid, signal);
    });
  }
  return { dir, cleanUp };
}

/** Stops every process that runs with TMPDIR=dir (Vitest's workers only when asked) and removes the folder. */
export function removeRun(dir: string, { workersToo = false } = {}): void {
  stopProcessesOf(dir, workersToo);
  rmSync(dir, { recursive: true, force: true });
}

interface RunProcess {
  pid: number;
  postgres: boolean;
}

/** Processes other than this one (Vitest's workers only when asked) that run with TMPDIR=dir (Linux: /proc; elsewhere none). */
function processesOf(dir: string, workersToo: boolean): RunProcess[] {
  if (!existsSync('/proc/self/environ')) return [];
  const marker = `\0TMPDIR=${dir}\0`;
  const found: RunProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = `\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`;
      if (!environ.includes(marker)) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      if (!workersToo && cmdline.includes('vitest')) continue;
      found.push({ pid, postgres: readFileSync(`/proc/${pid}/comm`, 'latin1').trim() === 'postgres' });
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

const signal = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
};

/**
 * Servers and CLIs at once (SIGKILL: a test that needed them is over); PostgreSQL with SIGQUIT, its immediate
 * shutdown, which ends its children and frees its shared memory; then waits for them, synchronously, since an
 * exiting process runs no more asynchronous work.
 */
function stopProcessesOf(dir: string, workersToo: boolean): void {
  const wait = new Int32Array(new SharedArrayBuffer(4));
  for (let round = 0; round < 3; round++) {
    const left = processesOf(dir, workersToo);
    if (left.length === 0) return;
    for (const p of left) signal(p.pid, p.postgres && round < 2 ? 'SIGQUIT' : 'SIGKILL');
    for (let i = 0; i < 40 && processesOf(dir, workersToo).length > 0; i++) Atomics.wait(wait, 0, 0, 50);
  }
}
