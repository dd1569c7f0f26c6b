import type { Command } from './command.ts';
import { modeFlag, type ParsedArgs } from './args.ts';
import type { Mode } from '../platform/db/engine.ts';
import type { Services } from '../platform/http/services.ts';
import { fileReading } from '../platform/file-read.ts';
import { verifyFiles } from '../platform/file-verify.ts';

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
  usage: 'files verify [--mode live|test] [--json]',
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
