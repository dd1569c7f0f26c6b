import type { Api } from '../platform/http/api.ts';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidParams, errors, IsoDate, Nullable, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { validation } from '../platform/errors.ts';
import { businessOf } from '../businesses/index.ts';
import { israelDate } from '../platform/clock.ts';
import { csvFile, csvFileName, jsonOrCsvResponse, money, sendCsv, type CsvCell } from '../platform/http/csv.ts';
import { listEntries } from './store.ts';
import { accountWithLedger, chartOfAccounts } from './account-reads.ts';
import { registerLedgerReportRoutes } from './report-routes.ts';
import { closePeriod, listClosedPeriods, reopenPeriod } from './periods.ts';
import { asCsv, Int, read, tags } from './route-parts.ts';
import { enumOf } from '../platform/http/enums.ts';
import { ENTRY_SOURCES } from './lists.ts';
import { Code, Kind, ManualEntryBody, NewAccountBody } from './schemas.ts';
import { createAccount, createManualEntry, getEntry, reverseEntry, updateAccount } from './service.ts';

const write = { scope: 'businesses' as const };

const AccountSchema = Type.Object({
  code: Type.String(),
  name: Type.String(),
  kind: Kind,
  trialBalanceCode: Type.String(),
  trialBalanceName: Type.String(),
  partyId: Nullable(Type.String()),
  closed: Type.Boolean(),
  createdAt: Type.String(),
});
const EntrySchema = Type.Object({
  id: Type.String(),
  entryNo: Int,
  date: IsoDate,
  source: enumOf(ENTRY_SOURCES),
  documentId: Nullable(Type.String()),
  expenseId: Nullable(Type.String()),
  reference: Nullable(Type.String()),
  referenceDocType: Nullable(Int),
  description: Type.String(),
  reversesEntryId: Nullable(Type.String()),
  createdAt: Type.String(),
  lines: Type.Array(Type.Object({ account: Type.String(), debit: Int, credit: Int })),
});
const CodeParams = Type.Object({ bid: Type.String({ minLength: 1, maxLength: 64 }), code: Code }, { additionalProperties: false });
const IdParams = Type.Object(
  { bid: Type.String({ minLength: 1, maxLength: 64 }), id: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);
const ENTRY_ERRORS = errors(...AUTH_ERRORS, 409, 422);

const Period = Type.Object({ period: Type.String(), closedAt: Type.String() });
const ReopenedPeriod = Type.Object({ period: Type.String(), closedAt: Type.String(), reopenedAt: Type.String(), reason: Type.String() });
const PeriodParams = Type.Object(
  { bid: Type.String({ minLength: 1, maxLength: 64 }), period: Type.String({ pattern: '^20[0-9]{2}-(0[1-9]|1[0-2])$', description: 'YYYY-MM' }) },
  { additionalProperties: false },
);

export function registerLedgerRoutes(api: Api, s: Services): void {
  registerChartRoutes(api, s);
  registerLedgerAccountRoutes(api, s);
  registerEntryListRoutes(api, s);
  registerEntryRoutes(api, s);
  registerPeriodRoutes(api, s);
  registerLedgerReportRoutes(api, s);
}

/** The chart of accounts: list (made on first read) and add. */
function registerChartRoutes(api: Api, s: Services): void {
  api.get(
    '/businesses/:bid/ledger/accounts',
    {
      config: read,
      schema: {
        tags,
        operationId: 'listLedgerAccounts',
        summary: 'The chart of accounts (the default chart of the dealer type, and accounts added)',
        params: BidParams,
        response: { 200: Ok({ accounts: Type.Array(AccountSchema) }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => ({ ok: true as const, accounts: await chartOfAccounts(ctxOf(req).database.db, businessOf(req), s.clock.now()) }),
  );

  api.post(
    '/businesses/:bid/ledger/accounts',
    {
      config: write,
      schema: {
        tags,
        operationId: 'createLedgerAccount',
        summary: 'Add an account to the chart',
        params: BidParams,
        body: NewAccountBody,
        response: { 201: Ok({ account: AccountSchema }), ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const account = await createAccount(ctx.database, { at: s.clock.now(), actor: ctx.actor, business: businessOf(req), input: req.body });
      return reply.status(201).send({ ok: true, account });
    },
  );
}

/** One account: its lines over a range (JSON or CSV), and its name or state. */
function registerLedgerAccountRoutes(api: Api, s: Services): void {
  registerAccountLedgerRoute(api, s);
  registerAccountUpdateRoute(api, s);
}

const AccountLedgerResponse = jsonOrCsvResponse(
  Ok({
    account: AccountSchema,
    from: IsoDate,
    to: IsoDate,
    opening: Int,
    closing: Int,
    lines: Type.Array(
      Type.Object({ entryNo: Int, date: IsoDate, description: Type.String(), reference: Nullable(Type.String()), debit: Int, credit: Int, balance: Int }),
    ),
  }),
  'the lines with their running balance after an opening-balance row',
);

function registerAccountLedgerRoute(api: Api, s: Services): void {
  api.get(
    '/businesses/:bid/ledger/accounts/:code',
    {
      config: read,
      schema: {
        tags,
        operationId: 'getLedgerAccount',
        summary: 'One account and its lines with the running balance (debit − credit) over a range',
        params: CodeParams,
        querystring: Type.Object({ from: Type.Optional(IsoDate), to: Type.Optional(IsoDate) }, { additionalProperties: false }),
        response: { 200: AccountLedgerResponse, ...errors(...AUTH_ERRORS) },
      },
    },
    async (req, reply) => {
      const b = businessOf(req);
      const db = ctxOf(req).database.db;
      const { code } = req.params;
      const q = req.query;
      const to = q.to ?? israelDate(s.clock.now());
      const from = q.from ?? `${to.slice(0, 4)}-01-01`;
      if (from > to) throw validation('querystring.from', `must not be after to (${to})`);
      const { account, ...ledger } = await accountWithLedger(db, b, { code, range: { from, to }, at: s.clock.now() });
      if (asCsv(req)) {
        const rows: CsvCell[][] = [
          [null, from, 'opening balance', null, null, null, money(ledger.opening)],
          ...ledger.lines.map((l): CsvCell[] => [l.entryNo, l.date, l.description, l.reference, money(l.debit), money(l.credit), money(l.balance)]),
        ];
        return sendCsv(
          reply,
          csvFileName('account', b.taxId, code, from, to),
          csvFile(['entryNo', 'date', 'description', 'reference', 'debit', 'credit', 'balance'], rows),
        );
      }
      return { ok: true as const, account, from, to, ...ledger };
    },
  );
}

function registerAccountUpdateRoute(api: Api, s: Services): void {
  api.patch(
    '/businesses/:bid/ledger/accounts/:code',
    {
      config: write,
      schema: {
        tags,
        operationId: 'updateLedgerAccount',
        summary: 'Rename, close or reopen an account (accounts are never deleted)',
        params: CodeParams,
        body: Type.Object(
          { name: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })), closed: Type.Optional(Type.Boolean()) },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: Ok({ account: AccountSchema }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const { code } = req.params;
      return {
        ok: true as const,
        account: await updateAccount(ctx.database, { at: s.clock.now(), actor: ctx.actor, business: businessOf(req), code, patch: req.body }),
      };
    },
  );
}

/** Journal entries: list and write a manual one. */
function registerEntryListRoutes(api: Api, s: Services): void {
  registerEntryListRoute(api);
  registerManualEntryRoute(api, s);
}

function registerEntryListRoute(api: Api): void {
  api.get(
    '/businesses/:bid/ledger/entries',
    {
      config: read,
      schema: {
        tags,
        operationId: 'listLedgerEntries',
        summary: 'Journal entries in the order they were written, with their lines',
        params: BidParams,
        querystring: Type.Object(
          {
            from: Type.Optional(IsoDate),
            to: Type.Optional(IsoDate),
            account: Type.Optional(Code),
            after: Type.Optional(Type.Integer({ minimum: 0, description: 'Cursor: the entryNo of the last entry of the previous page' })),
            take: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Ok({ entries: Type.Array(EntrySchema), nextAfter: Nullable(Int) }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => {
      const q = req.query;
      const take = q.take ?? 100;
      const entries = await listEntries(ctxOf(req).database.db, businessOf(req).id, { ...q, afterEntryNo: q.after, take });
      return { ok: true as const, entries, nextAfter: entries.length === take ? entries[entries.length - 1].entryNo : null };
    },
  );
}

function registerManualEntryRoute(api: Api, s: Services): void {
  api.post(
    '/businesses/:bid/ledger/entries',
    {
      config: write,
      schema: {
        tags,
        operationId: 'createLedgerEntry',
        summary: 'A manual journal entry (adjustment, opening balances): balanced, or 422 unbalanced',
        params: BidParams,
        body: ManualEntryBody,
        response: { 201: Ok({ entry: EntrySchema }), ...ENTRY_ERRORS },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const entry = await createManualEntry(ctx.database, { at: s.clock.now(), actor: ctx.actor, business: businessOf(req), input: req.body });
      return reply.status(201).send({ ok: true, entry });
    },
  );
}

/** One journal entry: read and reverse. */
function registerEntryRoutes(api: Api, s: Services): void {
  api.get(
    '/businesses/:bid/ledger/entries/:id',
    {
      config: read,
      schema: {
        tags,
        operationId: 'getLedgerEntry',
        summary: 'One journal entry with its lines',
        params: IdParams,
        response: { 200: Ok({ entry: EntrySchema }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => ({ ok: true as const, entry: await getEntry(ctxOf(req).database, businessOf(req).id, req.params.id) }),
  );

  api.post(
    '/businesses/:bid/ledger/entries/:id/reverse',
    {
      config: write,
      schema: {
        tags,
        operationId: 'reverseLedgerEntry',
        summary: 'Reverse a manual entry (the only correction of an entry)',
        params: IdParams,
        body: Type.Object({ date: IsoDate }, { additionalProperties: false }),
        response: { 201: Ok({ entry: EntrySchema }), ...ENTRY_ERRORS },
      },
    },
    async (req, reply) => {
      const ctx = ctxOf(req);
      const entry = await reverseEntry(ctx.database, {
        at: s.clock.now(),
        actor: ctx.actor,
        business: businessOf(req),
        id: req.params.id,
        date: req.body.date,
      });
      return reply.status(201).send({ ok: true, entry });
    },
  );
}

/** Closed months: list, close, reopen the last. */
function registerPeriodRoutes(api: Api, s: Services): void {
  api.get(
    '/businesses/:bid/ledger/periods',
    {
      config: read,
      schema: {
        tags,
        operationId: 'listLedgerPeriods',
        summary: 'The closed months of the books',
        params: BidParams,
        response: { 200: Ok({ closed: Type.Array(Period) }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => ({ ok: true as const, closed: await listClosedPeriods(ctxOf(req).database, businessOf(req).id) }),
  );

  api.post(
    '/businesses/:bid/ledger/periods/:period/close',
    {
      config: write,
      schema: {
        tags,
        operationId: 'closeLedgerPeriod',
        summary: 'Close a month that has ended, the month after the last one closed: no document or manual entry dated inside it any more',
        params: PeriodParams,
        response: { 201: Ok({ period: Period }), ...errors(...AUTH_ERRORS, 409) },
      },
    },
    async (req, reply) => {
      const { database, actor } = ctxOf(req);
      const at = s.clock.now();
      const period = await closePeriod(database, { at, actor, business: businessOf(req), period: req.params.period, today: israelDate(at) });
      return reply.status(201).send({ ok: true, period });
    },
  );

  api.post(
    '/businesses/:bid/ledger/periods/:period/reopen',
    {
      config: write,
      schema: {
        tags,
        operationId: 'reopenLedgerPeriod',
        summary: 'Reopen the last closed month, with a reason (audited; event ledger.period_reopened)',
        params: PeriodParams,
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false }),
        response: { 200: Ok({ period: ReopenedPeriod }), ...errors(...AUTH_ERRORS, 404, 409) },
      },
    },
    async (req) => {
      const ctx = ctxOf(req);
      const { period } = req.params;
      const reopened = await reopenPeriod(ctx.database, { at: s.clock.now(), actor: ctx.actor, business: businessOf(req), period, reason: req.body.reason });
      return { ok: true as const, period: reopened };
    },
  );
}
