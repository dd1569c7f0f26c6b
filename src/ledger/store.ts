/**
 * The ledger's reads and writes. A posting is one call inside the caller's transaction (journal_post,
 * migration 0026): the accounts it needs (from the default chart, written on first use), the next
 * entry number, the entry and its lines. The database checks the rest (migration 0015): balanced at commit, lines
 * only while the entry is written, no closed account, nothing ever updated or deleted.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, prepared, query, queryOne } from '../platform/db/sql.ts';
import { newId } from '../platform/ids.ts';
import { AppError } from '../platform/errors.ts';
import { holeParts } from '../platform/audit.ts';
import type { DealerType } from '../businesses/dealer-types.ts';
import { EXPENSE_CATEGORIES } from '../expenses/categories.ts';
import { defaultChart, type ChartAccount } from './chart.ts';
import type { AccountKind } from './lists.ts';
import { balanced, type JournalLine, type PartyAccount } from './journal.ts';
import type { EntrySource } from './lists.ts';

const categoryNames = Object.fromEntries(EXPENSE_CATEGORIES.map((c) => [c.key, c.nameHe]));
const charts = new Map<DealerType, Map<string, ChartAccount>>();

/** The default chart of a dealer type, by code. */
export function chartOf(dealerType: DealerType): Map<string, ChartAccount> {
  let chart = charts.get(dealerType);
  if (!chart) {
    chart = new Map(defaultChart(dealerType, categoryNames).map((a) => [a.code, a]));
    charts.set(dealerType, chart);
  }
  return chart;
}

export interface AccountRow {
  code: string;
  name: string;
  kind: string;
  trial_balance_code: string;
  trial_balance_name: string;
  party_id: string | null;
}

/** The rows of the accounts `codes` needs: default-chart accounts and party sub-accounts (others must exist). */
export function accountRows(dealerType: DealerType, codes: Iterable<string>, parties: PartyAccount[]): AccountRow[] {
  const chart = chartOf(dealerType);
  const rows: AccountRow[] = [];
  for (const code of new Set(codes)) {
    const party = parties.find((p) => p.code === code);
    if (party) {
      const control = chart.get(party.control)!;
      rows.push({
        code,
        name: party.name,
        kind: control.kind,
        trial_balance_code: control.trialBalanceCode,
        trial_balance_name: control.trialBalanceName,
        party_id: party.partyId,
      });
      continue;
    }
    const a = chart.get(code);
    // A code outside the default chart must already exist (added through the API): the lines' foreign key says so.
    if (a) rows.push({ code, name: a.name, kind: a.kind, trial_balance_code: a.trialBalanceCode, trial_balance_name: a.trialBalanceName, party_id: null });
  }
  return rows;
}

function insertAccounts(businessId: string, at: Date, rows: AccountRow[]) {
  return sql`INSERT INTO ledger_accounts(business_id, code, name, kind, trial_balance_code, trial_balance_name, party_id, created_at, updated_at)
    SELECT ${businessId}, a.code, a.name, a.kind, a.trial_balance_code, a.trial_balance_name, a.party_id, ${at.toISOString()}, ${at.toISOString()}
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS a(code text, name text, kind text, trial_balance_code text, trial_balance_name text, party_id text)
    ON CONFLICT (business_id, code) DO NOTHING`;
}

/** Writes the whole default chart of the business (what is there already stays as it is). */
export async function ensureChart(ex: Executor, businessId: string, dealerType: DealerType, at: Date): Promise<void> {
  await ex.execute(insertAccounts(businessId, at, accountRows(dealerType, chartOf(dealerType).keys(), [])));
}

export interface NewEntry {
  businessId: string;
  dealerType: DealerType;
  date: string;
  source: EntrySource;
  documentId?: string;
  expenseId?: string;
  /** May hold NUMBER_HOLE (platform/audit.ts) where the document's number goes, as `description` may. */
  reference?: string | null;
  referenceDocType?: number | null;
  /** Kept to its first 50 characters by the database. */
  description: string;
  reversesEntryId?: string;
  keyId: string | null;
  lines: JournalLine[];
  partyAccounts?: PartyAccount[];
}

/** What journal_post (migration 0026) writes: the entry, the accounts it needs and its lines. */
export type JournalCall = ReturnType<typeof journalCall>;

/** The call of one balanced entry (null for an entry without lines: a zero document writes none). */
export function journalCall(at: Date, e: NewEntry) {
  if (e.lines.length === 0) return null;
  if (!balanced(e.lines)) throw new AppError('unbalanced', 'the entry is not balanced: debits must equal credits, with two lines or more');
  return {
    id: newId('je', at.getTime()),
    businessId: e.businessId,
    date: e.date,
    source: e.source,
    documentId: e.documentId ?? null,
    expenseId: e.expenseId ?? null,
    referenceParts: e.reference == null ? null : holeParts(e.reference),
    referenceDocType: e.referenceDocType ?? null,
    descriptionParts: holeParts(e.description),
    reversesEntryId: e.reversesEntryId ?? null,
    keyId: e.keyId,
    at: at.toISOString(),
    accounts: accountRows(
      e.dealerType,
      e.lines.map((l) => l.account),
      e.partyAccounts ?? [],
    ),
    lines: e.lines.map((l, i) => ({
      n: i + 1,
      account: l.account,
      side: l.side,
      amount: l.amount,
      currency: l.currency ?? null,
      foreign: l.currency ? (l.foreignAmount ?? 0) : null,
    })),
  };
}

/** Writes one balanced entry in one round trip; answers its id and number. An entry without lines is not written. */
export async function postEntry(tx: Executor, at: Date, e: NewEntry): Promise<{ id: string; entryNo: number } | null> {
  const call = journalCall(at, e);
  if (!call) return null;
  const r = await queryOne<{ entry_no: number }>(tx, prepared('journal_post', sql`SELECT journal_post(${JSON.stringify(call)}::jsonb, NULL) AS entry_no`));
  return { id: call.id, entryNo: Number(r!.entry_no) };
}

export interface AccountView {
  code: string;
  name: string;
  kind: AccountKind;
  trialBalanceCode: string;
  trialBalanceName: string;
  partyId: string | null;
  closed: boolean;
  createdAt: string;
}

export const toAccountView = (r: Record<string, unknown>): AccountView => ({
  code: String(r.code),
  name: String(r.name),
  kind: r.kind as AccountKind,
  trialBalanceCode: String(r.trial_balance_code),
  trialBalanceName: String(r.trial_balance_name),
  partyId: (r.party_id as string | null) ?? null,
  closed: r.closed_at != null,
  createdAt: iso(r.created_at),
});

export async function listAccounts(ex: Executor, businessId: string): Promise<AccountView[]> {
  const rows = await query<Record<string, unknown>>(ex, sql`SELECT * FROM ledger_accounts WHERE business_id = ${businessId} ORDER BY code`);
  return rows.map(toAccountView);
}

export async function getAccount(ex: Executor, businessId: string, code: string): Promise<AccountView | undefined> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT * FROM ledger_accounts WHERE business_id = ${businessId} AND code = ${code}`);
  return r ? toAccountView(r) : undefined;
}

export interface EntryView {
  id: string;
  entryNo: number;
  date: string;
  source: NewEntry['source'];
  documentId: string | null;
  expenseId: string | null;
  reference: string | null;
  referenceDocType: number | null;
  description: string;
  reversesEntryId: string | null;
  createdAt: string;
  lines: { account: string; debit: number; credit: number }[];
}

/** Entries by number (the order they were written), with their lines; keyset paged by `afterEntryNo`. */
export async function listEntries(
  ex: Executor,
  businessId: string,
  q: { from?: string; to?: string; account?: string; afterEntryNo?: number; take: number },
): Promise<EntryView[]> {
  const where = [sql`e.business_id = ${businessId}`];
  if (q.from) where.push(sql`e.entry_date >= ${q.from}::date`);
  if (q.to) where.push(sql`e.entry_date <= ${q.to}::date`);
  if (q.afterEntryNo !== undefined) where.push(sql`e.entry_no > ${q.afterEntryNo}`);
  if (q.account) where.push(sql`EXISTS (SELECT 1 FROM journal_lines x WHERE x.entry_id = e.id AND x.account_code = ${q.account})`);
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT e.*, e.entry_date::text AS day,
               (SELECT jsonb_agg(jsonb_build_object('account', l.account_code, 'side', l.side, 'amount', l.amount) ORDER BY l.line_no)
                  FROM journal_lines l WHERE l.entry_id = e.id) AS lines
          FROM journal_entries e WHERE ${sql.join(where, sql` AND `)} ORDER BY e.entry_no LIMIT ${q.take}`,
  );
  return rows.map((r) => ({
    id: String(r.id),
    entryNo: Number(r.entry_no),
    date: String(r.day),
    source: String(r.source) as NewEntry['source'],
    documentId: (r.document_id as string | null) ?? null,
    expenseId: (r.expense_id as string | null) ?? null,
    reference: (r.reference as string | null) ?? null,
    referenceDocType: r.reference_doc_type == null ? null : Number(r.reference_doc_type),
    description: String(r.description),
    reversesEntryId: (r.reverses_entry_id as string | null) ?? null,
    createdAt: iso(r.created_at),
    lines: ((r.lines as { account: string; side: number; amount: number }[] | null) ?? []).map((l) => ({
      account: l.account,
      debit: l.side === 1 ? Number(l.amount) : 0,
      credit: l.side === 2 ? Number(l.amount) : 0,
    })),
  }));
}

export interface TrialBalanceRow {
  code: string;
  name: string;
  trialBalanceCode: string;
  debit: number;
  credit: number;
  /** debit − credit: positive is a debit balance. */
  balance: number;
}

type TrialBalance = { accounts: TrialBalanceRow[]; totals: { debit: number; credit: number } };

/** Every account's debits, credits and balance from the first entry up to `at` (inclusive); totals tie. */
export async function trialBalance(
  ex: Executor,
  businessId: string,
  at: string,
  /** Only entries written up to this instant (an export's fixed set). */
  cutOff?: Date,
): Promise<TrialBalance> {
  return (await trialBalances(ex, businessId, [at], cutOff))[0];
}

/**
 * trialBalance at each of `dates`, in one pass over the books (an export's verification reads two: each pass is
 * a scan of every journal line up to the date, seconds at a million documents). An account is in a date's
 * balance when it has a line up to that date.
 */
export async function trialBalances(ex: Executor, businessId: string, dates: string[], cutOff?: Date): Promise<TrialBalance[]> {
  const last = dates.reduce((a, b) => (a > b ? a : b));
  const rows = await query<Record<string, string | number>>(
    ex,
    sql`SELECT a.code, a.name, a.trial_balance_code, ${sql.join(
      dates.map(
        (d, i) => sql`count(*) FILTER (WHERE e.entry_date <= ${d}::date) AS ${sql.raw(`lines_${i}`)},
               coalesce(sum(l.amount) FILTER (WHERE l.side = 1 AND e.entry_date <= ${d}::date), 0)::bigint AS ${sql.raw(`debit_${i}`)},
               coalesce(sum(l.amount) FILTER (WHERE l.side = 2 AND e.entry_date <= ${d}::date), 0)::bigint AS ${sql.raw(`credit_${i}`)}`,
      ),
      sql`, `,
    )}
          FROM ledger_accounts a
          JOIN journal_lines l ON l.business_id = a.business_id AND l.account_code = a.code
          JOIN journal_entries e ON e.id = l.entry_id
         WHERE a.business_id = ${businessId} AND e.entry_date <= ${last}::date
           ${cutOff ? sql`AND e.created_at <= ${cutOff.toISOString()}` : sql``}
         GROUP BY a.code, a.name, a.trial_balance_code ORDER BY a.code`,
  );
  return dates.map((_, i) => {
    const accounts = rows
      .filter((r) => Number(r[`lines_${i}`]) > 0)
      .map((r) => {
        const debit = Number(r[`debit_${i}`]);
        const credit = Number(r[`credit_${i}`]);
        return { code: String(r.code), name: String(r.name), trialBalanceCode: String(r.trial_balance_code), debit, credit, balance: debit - credit };
      });
    const totals = accounts.reduce((t, a) => ({ debit: t.debit + a.debit, credit: t.credit + a.credit }), { debit: 0, credit: 0 });
    return { accounts, totals };
  });
}

/** One account's lines in date order with the running balance (debit − credit), opening balance before `from`. */
export async function accountLedger(
  ex: Executor,
  businessId: string,
  code: string,
  range: { from: string; to: string },
): Promise<{
  opening: number;
  lines: { entryNo: number; date: string; description: string; reference: string | null; debit: number; credit: number; balance: number }[];
  closing: number;
}> {
  const opening = await queryOne<{ b: string }>(
    ex,
    sql`SELECT coalesce(sum(CASE WHEN l.side = 1 THEN l.amount ELSE -l.amount END), 0)::bigint AS b
          FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
         WHERE l.business_id = ${businessId} AND l.account_code = ${code} AND e.entry_date < ${range.from}::date`,
  );
  const rows = await query<{ entry_no: string; day: string; description: string; reference: string | null; side: number; amount: string }>(
    ex,
    sql`SELECT e.entry_no, e.entry_date::text AS day, e.description, e.reference, l.side, l.amount
          FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id
         WHERE l.business_id = ${businessId} AND l.account_code = ${code}
           AND e.entry_date BETWEEN ${range.from}::date AND ${range.to}::date
         ORDER BY e.entry_date, e.entry_no, l.line_no`,
  );
  let balance = Number(opening!.b);
  const lines = rows.map((r) => {
    const debit = r.side === 1 ? Number(r.amount) : 0;
    const credit = r.side === 2 ? Number(r.amount) : 0;
    balance += debit - credit;
    return { entryNo: Number(r.entry_no), date: r.day, description: r.description, reference: r.reference, debit, credit, balance };
  });
  return { opening: Number(opening!.b), lines, closing: balance };
}

interface GroupRow {
  trialBalanceCode: string;
  trialBalanceName: string;
  /** Positive in the group's natural direction: credit − debit for revenue, debit − credit otherwise. */
  amount: number;
}

/** Σ per trial-balance group and account kind, over entries dated in [from, to] (from: the first entry). */
async function groups(ex: Executor, businessId: string, to: string, from?: string): Promise<(GroupRow & { kind: string })[]> {
  const rows = await query<{ kind: string; trial_balance_code: string; trial_balance_name: string; net: string }>(
    ex,
    sql`SELECT a.kind, a.trial_balance_code, min(a.trial_balance_name) AS trial_balance_name,
               sum(CASE WHEN l.side = 1 THEN l.amount ELSE -l.amount END)::bigint AS net
          FROM journal_lines l
          JOIN journal_entries e ON e.id = l.entry_id
          JOIN ledger_accounts a ON a.business_id = l.business_id AND a.code = l.account_code
         WHERE l.business_id = ${businessId} AND e.entry_date <= ${to}::date ${from ? sql`AND e.entry_date >= ${from}::date` : sql``}
         GROUP BY a.kind, a.trial_balance_code ORDER BY a.trial_balance_code, a.kind`,
  );
  const creditNatured = new Set(['revenue', 'liability', 'equity']);
  return rows.map((r) => ({
    kind: r.kind,
    trialBalanceCode: r.trial_balance_code,
    trialBalanceName: r.trial_balance_name,
    amount: creditNatured.has(r.kind) ? -Number(r.net) : Number(r.net),
  }));
}

const total = (rows: GroupRow[]) => rows.reduce((t, r) => t + r.amount, 0);
const strip = ({ trialBalanceCode, trialBalanceName, amount }: GroupRow): GroupRow => ({ trialBalanceCode, trialBalanceName, amount });

/** Revenue and expenses of a range by trial-balance group, and the profit (revenue − expenses). */
export async function incomeStatement(ex: Executor, businessId: string, from: string, to: string) {
  const rows = await groups(ex, businessId, to, from);
  const revenue = rows.filter((r) => r.kind === 'revenue').map(strip);
  const expenses = rows.filter((r) => r.kind === 'expense').map(strip);
  return { from, to, revenue, totalRevenue: total(revenue), expenses, totalExpenses: total(expenses), profit: total(revenue) - total(expenses) };
}

/**
 * Assets, liabilities and equity at a date by trial-balance group, with the profit not yet closed into
 * equity (every revenue and expense to date). Assets = liabilities + equity + profit, always.
 */
export async function balanceSheet(ex: Executor, businessId: string, at: string) {
  const rows = await groups(ex, businessId, at);
  const pick = (kind: string) => rows.filter((r) => r.kind === kind).map(strip);
  const [assets, liabilities, equity] = [pick('asset'), pick('liability'), pick('equity')];
  const profit = total(pick('revenue')) - total(pick('expense'));
  return {
    at,
    assets,
    totalAssets: total(assets),
    liabilities,
    totalLiabilities: total(liabilities),
    equity,
    totalEquity: total(equity),
    profitToDate: profit,
    balanced: total(assets) === total(liabilities) + total(equity) + profit,
  };
}
