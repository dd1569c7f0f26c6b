/**
 * The ledger accounts this process has seen committed, by database mode and business. An issue leaves them out of
 * its journal call, so journal_post skips its upsert of accounts (migration 0069). Accounts are never deleted (the
 * ledger_accounts_guard trigger), so a remembered one stays true. If one is missing anyway (a database replaced
 * under a running process), the lines' guard refuses the entry as a foreign key would (23503): the caller forgets
 * the business and sends the accounts again.
 */
import type { Mode } from '../platform/db/mode.ts';

const known = new Map<string, Set<string>>();
// A bound on memory: past it the cache starts over (each business then sends its accounts once more).
const MAX_BUSINESSES = 50_000;
const keyOf = (mode: Mode, businessId: string) => `${mode}:${businessId}`;

/** The rows whose account this process has not seen committed for the business. */
export function unknownAccounts<T extends { code: string }>(mode: Mode, businessId: string, rows: T[]): T[] {
  const codes = known.get(keyOf(mode, businessId));
  return codes ? rows.filter((r) => !codes.has(r.code)) : rows;
}

/** Records accounts that a committed entry of the business names. */
export function rememberAccounts(mode: Mode, businessId: string, codes: Iterable<string>): void {
  const key = keyOf(mode, businessId);
  let set = known.get(key);
  if (!set) {
    if (known.size >= MAX_BUSINESSES) known.clear();
    known.set(key, (set = new Set()));
  }
  for (const code of codes) set.add(code);
}

export function forgetAccounts(mode: Mode, businessId: string): void {
  known.delete(keyOf(mode, businessId));
}
