import type { Command } from './command.ts';
import { flag, modeFlag, UsageError, type ParsedArgs } from './args.ts';
import type { Mode } from '../platform/db/engine.ts';
import type { Services } from '../platform/http/services.ts';
import { fileReading } from '../platform/file-read.ts';
import { verifyFiles } from '../platform/file-verify.ts';
import { migrateFiles } from '../platform/file-migrate.ts';
import { sweepOrphans, type SweepResult } from '../platform/file-store/sweep.ts';

/** `--mode live|test`, or both databases when it is not given. */
function modes(args: ParsedArgs): Mode[] {
  return args.flags.mode === undefined ? ['live', 'sandbox'] : [modeFlag(args)];
}

/** Before a walk: the configured store must answer (a misconfigured bucket fails here, loudly). */
async function checked(s: Services, mode: Mode): Promise<void> {
  await s.fileStores[mode].current.check();
}

const label = (m: Mode) => (m === 'sandbox' ? 'test' : 'live');

/** `pinkas files verify [--mode live|test]`: every file read and checked against its sha256; exit 1 when any is not. */
export const verifyCommand: Command = {
  description: 'Read every stored file and check it against its sha256 (exit 1 when one fails)',
  options: { '--mode <live|test>': 'the books to verify (default: both)' },
  async run(s, args) {
    const json: Record<string, unknown> = {};
    const lines: string[] = [];
    let ok = true;
    for (const mode of modes(args)) {
      await checked(s, mode);
      const walk = await verifyFiles(fileReading(s, s.databases[mode]));
      json[label(mode)] = walk;
      ok &&= walk.ok;
      lines.push(
        walk.ok
          ? `${label(mode)}: ${walk.files} files intact (${walk.bytes} bytes read and hashed)`
          : `${label(mode)}: FILES FAILED THEIR CHECK (${walk.problems.length} of ${walk.files}):\n${walk.problems.map((p) => `  ${p.fileId} (${p.store}): ${p.problem}`).join('\n')}`,
      );
    }
    return { json: { ok, ...json }, text: lines.join('\n'), exitCode: ok ? 0 : 1 };
  },
};

/** `pinkas files migrate [--mode live|test] [--batch N]`: moves bytes out of the database (or the other store) into the configured one. */
export const migrateCommand: Command = {
  description: 'Move file bytes still in PostgreSQL (or in the other store) into the configured store',
  options: { '--mode <live|test>': 'the books to migrate (default: both)', '--batch <N>': 'files a batch (default 100)' },
  async run(s, args) {
    const raw = flag(args, 'batch') ?? '100';
    if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new UsageError('--batch must be a whole number of files, at least 1');
    const json: Record<string, unknown> = {};
    const lines: string[] = [];
    let ok = true;
    for (const mode of modes(args)) {
      await checked(s, mode);
      const store = s.fileStores[mode].current;
      const r = await migrateFiles(fileReading(s, s.databases[mode]), { batch: Number(raw) });
      json[label(mode)] = { ...r, store: store.location };
      ok &&= r.problems.length === 0;
      lines.push(
        `${label(mode)}: ${r.moved} files (${r.bytes} bytes) moved to ${store.location}; ${r.left} left` +
          (r.problems.length ? `\n${r.problems.map((p) => `  ${p.fileId} (${p.store}): ${p.problem}`).join('\n')}` : ''),
      );
    }
    return { json: { ok, ...json }, text: lines.join('\n'), exitCode: ok ? 0 : 1 };
  },
};

/** `pinkas files sweep [--mode live|test]`: removes orphans older than FILES_SWEEP_GRACE_HOURS (the background worker does it hourly). */
export const sweepCommand: Command = {
  description: 'Remove orphaned objects older than FILES_SWEEP_GRACE_HOURS and stale spools',
  options: { '--mode <live|test>': 'the books whose stores to sweep (default: both)' },
  async run(s, args) {
    const json: Record<string, SweepResult[]> = {};
    const lines: string[] = [];
    for (const mode of modes(args)) {
      json[label(mode)] = [];
      for (const store of s.fileStores[mode].all()) {
        const r = await sweepOrphans({ db: s.databases[mode].db, store, now: s.clock.now(), graceMs: s.config.files.sweepGraceMs });
        json[label(mode)].push(r);
        const refused = r.refused ? `; ${r.refused} orphans the store refused to remove (Object Lock retention?)` : '';
        lines.push(`${label(mode)} ${store.location}: ${r.objects} objects, ${r.removed} orphans and ${r.spools} stale spools removed${refused}`);
      }
    }
    return { json, text: lines.join('\n') };
  },
};
