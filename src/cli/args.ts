import type { Mode } from '../platform/db/mode.ts';
/**
 * What a command reads: `accounts create --name N --json` → positionals ['accounts','create'], flags
 * {name:'N', json:true}. The `pinkas` command line is parsed by commander (program.ts), which refuses
 * unknown commands and flags; `parseArgs` below reads any `--flag value` without a declaration, for
 * scripts that declare none (bench/seed) and for tests that call a command directly.
 */
export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | true>;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) {
        flags[a.slice(2, eq)] = a.slice(eq + 1);
      } else {
        const next = argv[i + 1];
        if (next !== undefined && !next.startsWith('--')) {
          flags[a.slice(2)] = next;
          i++;
        } else flags[a.slice(2)] = true;
      }
    } else positionals.push(a);
  }
  return { positionals, flags };
}

export class UsageError extends Error {}

export function flag(args: ParsedArgs, name: string, required: true): string;
export function flag(args: ParsedArgs, name: string, required?: false): string | undefined;
export function flag(args: ParsedArgs, name: string, required = false): string | undefined {
  const v = args.flags[name];
  if (v === true) throw new UsageError(`--${name} needs a value`);
  if (v === undefined && required) throw new UsageError(`--${name} is required`);
  return v;
}

/** A whole number, or "none" for null (clearing an override). */
export function optionalLimit(args: ParsedArgs, name: string): number | null | undefined {
  const v = flag(args, name);
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number or "none"`);
  return Number(v);
}

export function modeFlag(args: ParsedArgs): Mode {
  const m = flag(args, 'mode', true);
  if (m === 'live') return 'live';
  if (m === 'test' || m === 'sandbox') return 'sandbox';
  throw new UsageError('--mode must be live or test');
}
