import { loadConfig } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { systemClock } from '../platform/clock.ts';
import { openDatabases } from '../platform/db/open.ts';
import { AppError } from '../platform/errors.ts';
import { createServices } from '../services.ts';
import { commands } from './commands.ts';
import { UsageError, type ParsedArgs } from './args.ts';
import type { Command } from './command.ts';
import { buildProgram, commanderOutcome } from './program.ts';

/** The operator CLI: `npm run --silent cli -- <command>`; with --json, exactly one JSON object on stdout. */

const print = (json: boolean, obj: Record<string, unknown>, text: string) => process.stdout.write(json ? `${JSON.stringify(obj)}\n` : `${text}\n`);
/** A failure: the JSON object on stdout with --json (its one line), else the text on stderr. */
const fail = (json: boolean, obj: { error: string; reason: string }, text: string) =>
  json ? process.stdout.write(`${JSON.stringify(obj)}\n`) : process.stderr.write(`${text}\n`);

async function runCommand(command: Command, args: ParsedArgs, help: string): Promise<number> {
  const json = args.flags.json === true;
  let opened;
  try {
    const config = loadConfig();
    opened = await openDatabases(config, 'cli');
    const s = createServices(config, systemClock, createLogger(json ? 'silent' : 'warn'), opened.databases);
    const result = await command.run(s, args);
    print(json, result.json, result.text);
    return result.exitCode ?? 0;
  } catch (err) {
    if (err instanceof UsageError) {
      fail(json, { error: err.message, reason: 'validation' }, `error: ${err.message}\n\n${help}`);
      return 2;
    }
    const reason = err instanceof AppError ? err.reason : 'internal';
    fail(json, { error: (err as Error).message, reason }, `error: ${(err as Error).message}`);
    return 1;
  } finally {
    await opened?.close();
  }
}

async function main(argv: string[]): Promise<number> {
  let code = 0;
  const program = buildProgram(commands, {
    run: async (command, args, help) => void (code = await runCommand(command, args, help)),
    // Loaded when asked for: the MCP SDK and the listener are no part of any other command's start.
    mcp: async (options) => void (code = await (await import('./mcp.ts')).serveMcp(options)),
    listen: async (options) => void (code = await (await import('./listen.ts')).runListen(options)),
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    const outcome = commanderOutcome(err);
    if (!outcome) throw err;
    if (outcome.message) fail(argv.includes('--json'), { error: outcome.message, reason: 'validation' }, `error: ${outcome.message}`);
    return outcome.code;
  }
}

void main(process.argv.slice(2)).then((code) => process.exit(code));
