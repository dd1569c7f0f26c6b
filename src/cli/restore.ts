import { readFile } from 'node:fs/promises';
import type { Command } from './command.ts';
import { flag, modeFlag, UsageError } from './args.ts';
import { restoreBackup, sealKeyForReading } from '../backups/index.ts';

/**
 * `pinkas backups restore --file PATH --mode live|test [--seal-key K | --seal-key-file F] [--account ID] [--allow-unsealed] [--json]`:
 * checks the backup's seal and entries, then loads it into a database that lacks the business.
 * The seal key: --seal-key / --seal-key-file, else BACKUP_SEAL_KEY, else DATA_DIR/backups/seal.key.
 */
export const restoreCommand: Command = {
  description: 'Restore a business from a backup zip into books that lack it',
  options: {
    '--file <BACKUP.zip>': 'the backup (required)',
    '--mode <live|test>': 'the books to load it into (required)',
    '--seal-key <KEY>': 'the seal key (else --seal-key-file, BACKUP_SEAL_KEY, DATA_DIR/backups/seal.key)',
    '--seal-key-file <PATH>': 'a file holding the seal key',
    '--account <ACCOUNT_ID>': 'the account the business moves to (backups carry no accounts)',
    '--allow-unsealed': 'load a backup that carries no seal',
  },
  async run(s, args) {
    const path = flag(args, 'file', true);
    const mode = modeFlag(args);
    const keyFile = flag(args, 'seal-key-file');
    let given = flag(args, 'seal-key');
    if (keyFile !== undefined) {
      if (given !== undefined) throw new UsageError('pass --seal-key or --seal-key-file, not both');
      try {
        given = await readFile(keyFile, 'utf8');
      } catch (err) {
        throw new UsageError(`--seal-key-file: ${(err as Error).message}`);
      }
    }
    const allowUnsealed = args.flags['allow-unsealed'] === true;
    if (args.flags['allow-unsealed'] !== undefined && !allowUnsealed) throw new UsageError('--allow-unsealed takes no value');
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (err) {
      throw new UsageError(`--file: ${(err as Error).message}`);
    }
    const result = await restoreBackup(s.databases[mode], bytes, {
      sealKey: sealKeyForReading(s.config, given),
      allowUnsealed,
      accounts: s.databases.live,
      store: s.fileStores[mode].current,
      accountId: flag(args, 'account'),
    });
    const rows = Object.values(result.tables).reduce((a, b) => a + b, 0);
    return {
      json: { ...result },
      text:
        `business ${result.businessId} restored into ${mode} for account ${result.accountId}: ${rows} rows in ${Object.keys(result.tables).length} tables, ${result.files} files` +
        (result.sealed ? ' (seal checked)' : ' (UNSEALED backup, allowed by --allow-unsealed)'),
    };
  },
};
