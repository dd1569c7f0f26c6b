// commander, not citty: it refuses an unknown command or flag by name (with the closest match) as
// it comes, while citty lets unknown flags through; it has no dependencies, and v14 runs on Node 20.
import { Command as Program, CommanderError } from 'commander';
import type { ParsedArgs } from './args.ts';
import type { Command } from './command.ts';

/** What each group of commands is about, for `pinkas help`. */
const GROUPS: Record<string, string> = {
  accounts: 'Accounts of the service',
  keys: 'API keys',
  businesses: 'Businesses (approval)',
  plans: 'Plans and their monthly limits',
  audit: 'The audit trail',
  backups: 'Backups of a business',
  files: 'Stored files: verify, migrate out of PostgreSQL, sweep orphans (docs/files.md)',
};

/** What the parsed command line runs (main.ts); each keeps the exit code of what it ran. */
export interface CliHandlers {
  /** An operator command, on the databases; `help` is its usage, for a usage error. */
  run(command: Command, args: ParsedArgs, help: string): Promise<void>;
  /** `pinkas mcp`: serves MCP over stdio until stdin closes. */
  mcp(options: { url?: string }): Promise<void>;
  /** `pinkas listen`: forwards new sandbox events to a local URL until interrupted. */
  listen(options: { forwardTo: string; events?: string; url?: string; pollMs?: string }): Promise<void>;
}

/** What commander read, in the shape the commands take: the words and argument, and each flag by its name. */
function parsedArgs(words: string[], cmd: Program): ParsedArgs {
  const flags: ParsedArgs['flags'] = {};
  const values = cmd.opts<Record<string, string | true | undefined>>();
  for (const option of cmd.options) {
    const value = values[option.attributeName()];
    if (value !== undefined && option.long) flags[option.long.slice(2)] = value;
  }
  return { positionals: [...words, ...cmd.args], flags };
}

function addOperatorCommand(program: Program, { name, command, run }: { name: string; command: Command; run: CliHandlers['run'] }) {
  const words = name.split(' ');
  const parent =
    words.length === 1 ? program : (program.commands.find((c) => c.name() === words[0]) ?? program.command(words[0]).description(GROUPS[words[0]] ?? ''));
  const cmd = parent.command(words.at(-1)!).description(command.description);
  if (command.argument) cmd.argument(`<${command.argument}>`);
  for (const [flags, description] of Object.entries(command.options ?? {})) cmd.option(flags, description);
  cmd.option('--json', 'print exactly one JSON object');
  cmd.action(async (...received: unknown[]) => {
    const self = received.at(-1) as Program;
    await run(command, parsedArgs(words, self), self.helpInformation());
  });
}

/** The `pinkas` command line: every operator command and `mcp`. Errors and help throw (exitOverride), never exit. */
export function buildProgram(commands: Record<string, Command>, handlers: CliHandlers): Program {
  // Subcommands inherit both: parse errors are printed by the caller, as text or JSON.
  const program = new Program('pinkas')
    .description('Operator commands of pinkas, its MCP server and its webhook forwarder')
    .exitOverride()
    .configureOutput({ outputError: () => {} });
  for (const [name, command] of Object.entries(commands)) addOperatorCommand(program, { name, command, run: handlers.run });
  program
    .command('mcp')
    .description('Serve the API to an MCP client over stdio (env PINKAS_API_KEY; the server at --url or PINKAS_URL)')
    .option('--url <URL>', 'the running pinkas server (default PINKAS_URL, else http://localhost:3000)')
    .action((options: { url?: string }) => handlers.mcp(options));
  program
    .command('listen')
    .description('Forward each new event of a sandbox key (env PINKAS_API_KEY) to a local URL, signed like a delivery (env PINKAS_WEBHOOK_SECRET)')
    .requiredOption('--forward-to <URL>', 'where to POST each event, e.g. http://localhost:8080/hooks')
    .option('--events <a,b>', 'only these event names (default: all)')
    .option('--url <URL>', 'the running pinkas server (default PINKAS_URL, else http://localhost:3000)')
    .option('--poll-ms <N>', 'how often to ask for new events (default 1000)')
    .action((options: { forwardTo: string; events?: string; url?: string; pollMs?: string }) => handlers.listen(options));
  return program;
}

/** A parse error or a help request: its exit code (0 for help asked for, 2 for a usage error) and its message. */
export function commanderOutcome(err: unknown): { code: number; message?: string } | undefined {
  if (!(err instanceof CommanderError)) return undefined;
  if (err.exitCode === 0) return { code: 0 };
  // Help shown because no command was given: usage, not an error of its own.
  if (err.code === 'commander.help') return { code: 2 };
  return { code: 2, message: err.message.replace(/^error: /, '').replace(/\n\((Did you mean [^)]*)\)/, ' ($1)') };
}
