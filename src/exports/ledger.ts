/**
 * The ledger in the OPENFRMT export of a double-entry business (B100 journal lines, B110 accounts;
 * reference §4.6–4.7), and its check when the file is read back.
 *
 * The set is the run's: entries dated in the range and written up to the run's cut-off. B110 carries
 * each account touched up to the end of the range: its balance before the range (1414, debit +,
 * credit −), and its debits and credits inside it (1415/1416); so 1414 + 1415 − 1416 is the account's
 * trial-balance figure at the end of the range. B100 carries every line of the range's entries, in
 * entry order (1353 = the entry number, 1354 its line), amounts positive with the side in 1366.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import { israelDate } from '../platform/clock.ts';
import { conflict } from '../platform/errors.ts';
import type { B100Input, B110Input } from '../openfrmt/index.ts';
import { toHundredths } from '../documents/currency.ts';
import { taxIdOfAccountCode } from '../ledger/index.ts';

type Head = 'recordNo' | 'vatId';

/** The largest figure X9(12)v99 carries, in agorot. */
export const MAX_B110_AGOROT = 99_999_999_999_999;

export interface LedgerAccountTotals {
  code: string;
  opening: number;
  debit: number;
  credit: number;
}

/** B110 of every account with a balance before the range or a line inside it. */
export async function exportAccounts(
  ex: Executor,
  businessId: string,
  range: { from: string; to: string },
  cutOff: Date,
): Promise<{ records: Omit<B110Input, Head>[]; totals: LedgerAccountTotals[] }> {
  const rows = await query<{
    code: string;
    name: string;
    trial_balance_code: string;
    trial_balance_name: string;
    tax_id: string | null;
    opening: string;
    debit: string;
    credit: string;
  }>(
    ex,
    sql`SELECT a.code, a.name, a.trial_balance_code, a.trial_balance_name, p.tax_id,
               coalesce(sum(CASE WHEN e.entry_date < ${range.from}::date THEN (CASE WHEN l.side = 1 THEN l.amount ELSE -l.amount END) END), 0)::bigint AS opening,
               coalesce(sum(l.amount) FILTER (WHERE e.entry_date >= ${range.from}::date AND l.side = 1), 0)::bigint AS debit,
               coalesce(sum(l.amount) FILTER (WHERE e.entry_date >= ${range.from}::date AND l.side = 2), 0)::bigint AS credit
          FROM ledger_accounts a
          JOIN journal_lines l ON l.business_id = a.business_id AND l.account_code = a.code
          JOIN journal_entries e ON e.id = l.entry_id
          LEFT JOIN parties p ON p.id = a.party_id
         WHERE a.business_id = ${businessId} AND e.entry_date <= ${range.to}::date AND e.created_at <= ${cutOff.toISOString()}
         GROUP BY a.code, a.name, a.trial_balance_code, a.trial_balance_name, p.tax_id
         ORDER BY a.code`,
  );
  const totals = rows.map((r) => ({ code: r.code, opening: Number(r.opening), debit: Number(r.debit), credit: Number(r.credit) }));
  // B110 1414–1416 are X9(12)v99: each document fits its own fields, but an account's sum over a range
  // may not. Refuse the range, clearly, rather than cut a figure or fail half-way.
  for (const t of totals) {
    const over = (['opening', 'debit', 'credit'] as const).find((k) => Math.abs(t[k]) > MAX_B110_AGOROT);
    if (over) {
      throw conflict(
        `account ${t.code}: its ${over === 'opening' ? 'balance before the range' : `total ${over}s in the range`} (${t[over]} agorot) exceed what OPENFRMT B110 carries (99,999,999,999,999 agorot): export a shorter range`,
      );
    }
  }
  const records = rows.map((r, i) => ({
    accountKey: r.code,
    accountName: r.name,
    trialBalanceCode: r.trial_balance_code,
    trialBalanceName: r.trial_balance_name,
    openingBalance: totals[i].opening,
    totalDebit: totals[i].debit,
    totalCredit: totals[i].credit,
    // 1419: the party's VAT number on a customer or supplier account (mandatory in double-entry books).
    // A saved party's from its row; a sub-account by tax id carries it in its code (ledger taxIdOfAccountCode).
    partyVatId: r.tax_id && /^\d{1,9}$/.test(r.tax_id) ? r.tax_id.padStart(9, '0') : taxIdOfAccountCode(r.code),
  }));
  return { records, totals };
}

/** A journal line as the export's statement gives it: [line_no, account_code, side, amount, currency, foreign_amount]. */
type LineCells = [number, string, number, number, string | null, number | null];

interface EntryRow {
  entry_no: string;
  day: string;
  /** created_at in epoch milliseconds (cut, as a Date would). */
  created_ms: string;
  description: string;
  reference: string | null;
  reference_doc_type: number | null;
  lines: LineCells[] | null;
}

/** B100/1375: the Israel date the entry was written (asked once per UTC hour: entries come in time order). */
const entryDates = new Map<number, string>();
function entryDateOf(createdMs: number): string {
  const hour = Math.floor(createdMs / 3_600_000);
  let day = entryDates.get(hour);
  // The Israel offset is whole hours, so every instant of a UTC hour has the same Israel date.
  if (day === undefined) {
    day = israelDate(new Date(createdMs));
    if (entryDates.size > 50_000) entryDates.clear();
    entryDates.set(hour, day);
  }
  return day;
}

/**
 * B100 of the range's entries, `chunk` entries per read: keyset on the entry number (the unique index
 * (business_id, entry_no) gives them in order), each entry's lines by the lines' primary key, one index probe per
 * entry. A row per entry, its lines as one json array (JSON.parse is native; a row per line repeated the entry's
 * columns and cost pg's row parsing 2.5 times as much on the main thread: 1.10–1.31 s against 0.43–0.50 s for the 359,938
 * lines of 100,000 documents, PostgreSQL 0.76–0.88 s against 0.90 s), and created_at as epoch milliseconds
 * instead of a timestamptz that pg parses into a Date per line.
 *
 * A chunk's rows and their B100 inputs live until the chunk is formatted, with the next chunk read meanwhile:
 * at 2,000 entries (~7,200 lines) they outgrew V8's young generation and were promoted, and the main heap grew
 * to ~125 MB before a full collection (~20 MB live); at 500 entries it stays under ~65 MB (100,000 documents).
 */
export async function* exportJournal(
  ex: Executor,
  businessId: string,
  { range, cutOff, chunk = 500 }: { range: { from: string; to: string }; cutOff: Date; chunk?: number },
): AsyncGenerator<Omit<B100Input, Head>[]> {
  let after = 0;
  for (;;) {
    const rows: EntryRow[] = await query<EntryRow>(
      ex,
      sql`SELECT e.entry_no, e.entry_date::text AS day, floor(extract(epoch FROM e.created_at) * 1000)::bigint AS created_ms,
                 e.description, e.reference, e.reference_doc_type,
                 (SELECT json_agg(json_build_array(l.line_no, l.account_code, l.side, l.amount, l.currency, l.foreign_amount) ORDER BY l.line_no)
                    FROM journal_lines l WHERE l.entry_id = e.id) AS lines
            FROM journal_entries e
           WHERE e.business_id = ${businessId} AND e.entry_no > ${after}
             AND e.entry_date BETWEEN ${range.from}::date AND ${range.to}::date AND e.created_at <= ${cutOff.toISOString()}
           ORDER BY e.entry_no LIMIT ${chunk}`,
    );
    if (rows.length === 0) return;
    const out: Omit<B100Input, Head>[] = [];
    for (const r of rows) {
      const entryNo = Number(r.entry_no);
      const entryDate = entryDateOf(Number(r.created_ms));
      for (const [lineNo, account, side, amount, currency, foreignAmount] of r.lines ?? []) {
        out.push({
          entryNo,
          lineNo,
          reference: r.reference,
          referenceDocType: r.reference_doc_type,
          details: r.description,
          date: r.day,
          valueDate: r.day,
          account,
          side: side as 1 | 2,
          amount,
          // 1367/1369: a foreign-currency line's currency and its amount in hundredths of the unit (the field's two decimals).
          currency,
          foreignAmount: currency && foreignAmount !== null ? toHundredths(foreignAmount, currency) : null,
          entryDate,
        });
      }
    }
    // An entry without lines writes nothing (as the join it replaces).
    if (out.length) yield out;
    after = Number(rows[rows.length - 1].entry_no);
  }
}
