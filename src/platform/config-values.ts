// Reading one environment variable: whole numbers in range, PostgreSQL URLs, existing files; a bad value throws
// a ConfigError naming the variable.
import path from 'node:path';
import { existsSync } from 'node:fs';
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/** A whole number in [min, max]; unset or empty is `fallback`. */
export function integer(env: Env, name: string, fallback: number, { min, max }: { min: number; max: number }): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

const TRUE_WORDS = ['1', 'true'];
const FALSE_WORDS = ['0', 'false'];

/**
 * A switch: `1`/`true` or `0`/`false` (any case, spaces trimmed); unset or empty is `fallback`. Every boolean
 * setting reads through this one function, so each accepts the same four words.
 */
export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (TRUE_WORDS.includes(raw)) return true;
  if (FALSE_WORDS.includes(raw)) return false;
  throw new ConfigError(name, `must be 1, 0, true or false, got "${env[name]}"`);
}

export function postgresUrl(env: Env, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a URL (expected postgres://user@host:port/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(name, `must start with postgres:// or postgresql://, got "${url.protocol}"`);
  }
  return raw;
}

export function readableFile(name: string, file: string): string {
  const full = path.resolve(file);
  if (!existsSync(full)) throw new ConfigError(name, `names a file that does not exist: ${full}`);
  return full;
}
