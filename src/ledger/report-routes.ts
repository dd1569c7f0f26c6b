// The ledger's reports (docs/ledger.md): income statement, balance sheet and trial balance, as JSON or CSV.
import type { FastifyReply } from 'fastify';
import type { Api } from '../platform/http/api.ts';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidParams, errors, IsoDate, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { validation } from '../platform/errors.ts';
import { businessOf } from '../businesses/index.ts';
import { israelDate } from '../platform/clock.ts';
import { csvFile, csvFileName, jsonOrCsvResponse, money, sendCsv, type CsvCell } from '../platform/http/csv.ts';
import { balanceSheet, incomeStatement, trialBalance } from './store.ts';
import { asCsv, Int, read, tags } from './route-parts.ts';

const Group = Type.Object({ trialBalanceCode: Type.String(), trialBalanceName: Type.String(), amount: Int });

interface GroupAmount {
  trialBalanceCode: string;
  trialBalanceName: string;
  amount: number;
}
const GROUP_HEADER = ['line', 'trialBalanceCode', 'trialBalanceName', 'amount'];
/** Each group under its section's name (`revenue`, `assets`…), then the section's total under the JSON's name of it. */
const groupRows = (section: string, groups: GroupAmount[], totalName: string, total: number): CsvCell[][] => [
  ...groups.map((g): CsvCell[] => [section, g.trialBalanceCode, g.trialBalanceName, money(g.amount)]),
  [totalName, null, null, money(total)],
];
const sendGroups = (reply: FastifyReply, name: string, rows: CsvCell[][]) => sendCsv(reply, name, csvFile(GROUP_HEADER, rows));

export function registerLedgerReportRoutes(api: Api, s: Services): void {
  registerIncomeStatementRoute(api, s);
  registerBalanceSheetRoute(api, s);
  registerTrialBalanceRoute(api, s);
}

function registerIncomeStatementRoute(api: Api, s: Services): void {
  api.get(
    '/businesses/:bid/ledger/income-statement',
    {
      config: read,
      schema: {
        tags,
        operationId: 'getIncomeStatement',
        summary: 'Revenue and expenses of a range by trial-balance group, and the profit',
        params: BidParams,
        querystring: Type.Object({ from: Type.Optional(IsoDate), to: Type.Optional(IsoDate) }, { additionalProperties: false }),
        response: {
          200: jsonOrCsvResponse(
            Ok({ from: IsoDate, to: IsoDate, revenue: Type.Array(Group), totalRevenue: Int, expenses: Type.Array(Group), totalExpenses: Int, profit: Int }),
            'one row per group (`line` revenue or expenses), each total and the profit',
          ),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const to = q.to ?? israelDate(s.clock.now());
      const from = q.from ?? `${to.slice(0, 4)}-01-01`;
      if (from > to) throw validation('querystring.from', `must not be after to (${to})`);
      const b = businessOf(req);
      const r = await incomeStatement(ctxOf(req).database.db, b.id, from, to);
      if (asCsv(req)) {
        return sendGroups(reply, csvFileName('income-statement', b.taxId, from, to), [
          ...groupRows('revenue', r.revenue, 'totalRevenue', r.totalRevenue),
          ...groupRows('expenses', r.expenses, 'totalExpenses', r.totalExpenses),
          ['profit', null, null, money(r.profit)],
        ]);
      }
      return { ok: true as const, ...r };
    },
  );
}

function registerBalanceSheetRoute(api: Api, s: Services): void {
  api.get(
    '/businesses/:bid/ledger/balance-sheet',
    {
      config: read,
      schema: {
        tags,
        operationId: 'getBalanceSheet',
        summary: 'Assets, liabilities and equity at a date by trial-balance group, with the profit to date',
        params: BidParams,
        querystring: Type.Object({ at: Type.Optional(IsoDate) }, { additionalProperties: false }),
        response: {
          200: jsonOrCsvResponse(
            Ok({
              at: IsoDate,
              assets: Type.Array(Group),
              totalAssets: Int,
              liabilities: Type.Array(Group),
              totalLiabilities: Int,
              equity: Type.Array(Group),
              totalEquity: Int,
              profitToDate: Int,
              balanced: Type.Boolean(),
            }),
            'one row per group (`line` assets, liabilities or equity), each total and the profit to date',
          ),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (req, reply) => {
      const at = req.query.at ?? israelDate(s.clock.now());
      const b = businessOf(req);
      const r = await balanceSheet(ctxOf(req).database.db, b.id, at);
      if (asCsv(req)) {
        return sendGroups(reply, csvFileName('balance-sheet', b.taxId, at), [
          ...groupRows('assets', r.assets, 'totalAssets', r.totalAssets),
          ...groupRows('liabilities', r.liabilities, 'totalLiabilities', r.totalLiabilities),
          ...groupRows('equity', r.equity, 'totalEquity', r.totalEquity),
          ['profitToDate', null, null, money(r.profitToDate)],
        ]);
      }
      return { ok: true as const, ...r };
    },
  );
}

function registerTrialBalanceRoute(api: Api, s: Services): void {
  api.get(
    '/businesses/:bid/ledger/trial-balance',
    {
      config: read,
      schema: {
        tags,
        operationId: 'getTrialBalance',
        summary: "Every account's debits, credits and balance up to a date; the totals tie",
        params: BidParams,
        querystring: Type.Object({ at: Type.Optional(IsoDate) }, { additionalProperties: false }),
        response: {
          200: jsonOrCsvResponse(
            Ok({
              at: IsoDate,
              accounts: Type.Array(
                Type.Object({ code: Type.String(), name: Type.String(), trialBalanceCode: Type.String(), debit: Int, credit: Int, balance: Int }),
              ),
              totals: Type.Object({ debit: Int, credit: Int }),
            }),
            'one row per account and a `totals` row',
          ),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (req, reply) => {
      const at = req.query.at ?? israelDate(s.clock.now());
      const b = businessOf(req);
      const tb = await trialBalance(ctxOf(req).database.db, b.id, at);
      if (asCsv(req)) {
        const rows: CsvCell[][] = [
          ...tb.accounts.map((r): CsvCell[] => [r.code, r.name, r.trialBalanceCode, money(r.debit), money(r.credit), money(r.balance)]),
          ['totals', null, null, money(tb.totals.debit), money(tb.totals.credit), money(tb.totals.debit - tb.totals.credit)],
        ];
        return sendCsv(reply, csvFileName('trial-balance', b.taxId, at), csvFile(['code', 'name', 'trialBalanceCode', 'debit', 'credit', 'balance'], rows));
      }
      return { ok: true as const, at, ...tb };
    },
  );
}
