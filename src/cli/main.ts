import { loadConfig } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { systemClock } from '../platform/clock.ts';
import { openDatabases } from '../platform/db/open.ts';
import { AppError } from '../platform/errors.ts';
import { createServices } from '../services.ts';
import { commands, findCommand } from './commands.ts';
import { parseArgs, UsageError } from './args.ts';

/** The operator CLI: `npm run --silent cli -- <command>`; with --json, exactly one JSON object on stdout. */
async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const json = args.flags.json === true;
  const out = (obj: Record<string, unknown>, text: string) => process.stdout.write(json ? `${JSON.stringify(obj)}\n` : `${text}\n`);
  const command = findCommand(args);
  if (!command) {
    const usage = Object.values(commands)
      .map((c) => `  pinkas ${c.usage}`)
      .join('\n');
    out({ error: `unknown command "${args.positionals.join(' ')}"`, reason: 'validation' }, `usage:\n${usage}`);
    return 2;
  }
  let opened;
  try {
    const config = loadConfig();
    opened = await openDatabases(config, 'cli');
    const s = createServices(config, systemClock, createLogger(json ? 'silent' : 'warn'), opened.databases);
    const result = await command.run(s, args);
    out(result.json, result.text);
    return result.exitCode ?? 0;
  } catch (err) {
    if (err instanceof UsageError) {
      out({ error: err.message, reason: 'validation' }, `${err.message}\nusage: pinkas ${command.usage}`);
      return 2;
    }
    if (err instanceof AppError) {
      out({ error: err.message, reason: err.reason }, `error: ${err.message}`);
      return 1;
    }
    out({ error: (err as Error).message, reason: 'internal' }, `error: ${(err as Error).message}`);
    return 1;
  } finally {
    await opened?.close();
  }
}

void main(process.argv.slice(2)).then((code) => process.exit(code));
