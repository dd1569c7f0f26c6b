import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeRun } from '../helpers/run-dir.ts';

/** What an interrupted run leaves (test/helpers/run-dir.ts): nothing, processes included. */
describe('the run folder', () => {
  it('stops the processes that inherited its TMPDIR and removes it; a process of another folder lives on', async () => {
    const outer = process.env.TMPDIR ?? '/tmp';
    const dir = mkdtempSync(path.join(outer, 'pinkas-run-probe-'));
    const other = mkdtempSync(path.join(outer, 'pinkas-run-other-'));
    writeFileSync(path.join(dir, 'left-behind'), 'x');
    const spawnIn = (tmp: string) =>
      spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'], {
        env: { ...process.env, TMPDIR: tmp },
        stdio: 'ignore',
      });
    const ours = spawnIn(dir);
    const theirs = spawnIn(other);
    const oursExit = new Promise<NodeJS.Signals | null>((resolve) => ours.once('exit', (_code, signal) => resolve(signal)));
    await new Promise((r) => setTimeout(r, 300));
    try {
      removeRun(dir);
      expect(await oursExit).toBe('SIGKILL');
      expect(existsSync(dir)).toBe(false);
      expect(theirs.exitCode).toBeNull();
      expect(theirs.signalCode).toBeNull();
    } finally {
      theirs.kill('SIGKILL');
      removeRun(other);
    }
  });
});
