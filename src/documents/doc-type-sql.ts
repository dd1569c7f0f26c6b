import { sql, type SQL } from 'drizzle-orm';
import { docTypesWhere, type DocTypeRule } from './doc-types.ts';

/**
 * `column IN (…)` over the codes of the types that pass `test` (documents/doc-types.ts): SQL that picks
 * types by their rule, never by a list written by hand. The codes are the table's integers, written
 * as literals so the plan is the same as for a written list; `false` when no type passes.
 */
export function docTypeIn(column: SQL, test: (r: DocTypeRule) => boolean): SQL {
  const codes = docTypesWhere(test);
  return codes.length === 0 ? sql`false` : sql`${column} IN (${sql.raw(codes.map((c) => String(Math.trunc(c))).join(', '))})`;
}
