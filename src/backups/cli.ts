import { readFile } from 'node:fs/promises';
import type { Command } from '../cli/commands.ts';
import { flag, modeFlag } from '../cli/args.ts';
import { restoreBackup } from './restore.ts';

/** `pinkas backups restore --file PATH --mode live|test [--json]`: loads a backup zip into a database that lacks the business. */
export const restoreCommand: Command = {
  usage: 'backups restore --file BACKUP.zip --mode live|test [--json]',
  async run(s, args) {
    const path = flag(args, 'file', true);
    const mode = modeFlag(args);
    const result = await restoreBackup(s.databases[mode], await readFile(path));
    const rows = Object.values(result.tables).reduce((a, b) => a + b, 0);
    return { json: { ...result }, text: `business ${result.businessId} restored into ${mode}: ${rows} rows in ${Object.keys(result.tables).length} tables, ${result.files} files` };
  },
};
