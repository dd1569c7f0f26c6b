import type { Services } from '../platform/http/services.ts';
import type { ParsedArgs } from './args.ts';

/** The shape of an operator command (its own file: domains add commands without importing the list). */
export interface CommandResult {
  /** The one JSON object printed with --json. */
  json: Record<string, unknown>;
  /** What a person reads without --json. */
  text: string;
  /** The process's exit code when the command ran but found something wrong (a file that failed its check); 0 when absent. */
  exitCode?: number;
}

export interface Command {
  /** One line for `pinkas help`. */
  description: string;
  /** Its positional argument after the command's words, e.g. `ACCOUNT_ID`. */
  argument?: string;
  /**
   * Its flags as commander declares them (`--account <ID>` takes a value, `--allow-unsealed` none),
   * each with its help line; `--json` is every command's. Which are required the command checks itself.
   */
  options?: Record<string, string>;
  run(s: Services, args: ParsedArgs): Promise<CommandResult>;
}
