import type { Api } from '../platform/http/api.ts';
import { Type } from 'typebox';
import { ctxOf } from '../platform/http/context.ts';
import { AUTH_ERRORS, BidParams, errors, IsoDate, Nullable, Ok } from '../platform/http/schemas.ts';
import type { Services } from '../platform/http/services.ts';
import { businessOf } from '../businesses/index.ts';
import { summaryReport, vatReportOf } from './queries.ts';
import {
  LedgerVatFields,
  VatLineSchema,
  VatLinesQuery,
  VatQuery,
  parseVatPeriod,
  vatLines,
  sendVatLinesCsv,
  VAT_LINES_CSV,
  VAT_REPORT_CSV,
  vatReportCsv,
  vatReportCsvName,
} from '../vat/index.ts';
import { jsonOrCsvResponse, prefersCsv, sendCsv } from '../platform/http/csv.ts';

const tags = ['reports'];
const RangeQuery = Type.Object({ from: IsoDate, to: IsoDate }, { additionalProperties: false });
const Int = Type.Integer();

const SummarySchema = Type.Object({
  from: IsoDate,
  to: IsoDate,
  currency: Type.Literal('ILS'),
  income: Type.Object({
    byMonth: Type.Array(Type.Object({ month: Type.String(), docType: Int, count: Int, amountExVat: Int, vatAmount: Int })),
    totalExVat: Int,
  }),
  outputVat: Int,
  receipts: Type.Object({ count: Int, total: Int }),
  documents: Type.Object(
    {
      byDocType: Type.Array(
        Type.Object({
          docType: Int,
          taxDocument: Type.Boolean({
            description: 'false for the commercial papers (quote, order, delivery and return notes, 300): counted, never in the books.',
          }),
          count: Int,
          totalIncVat: Type.Integer({ description: 'Agorot, the shekel figures; a credit note (330) counted negative.' }),
        }),
      ),
    },
    { description: 'Every issued document of the range by type, the commercial papers too (issue 30); one entry per type, ascending, zeros included.' },
  ),
  expenses: Type.Object({
    byCategory: Type.Array(
      Type.Object({ category: Type.String(), nameHe: Nullable(Type.String()), count: Int, amountExVat: Int, vatAmount: Int, deductibleVat: Int }),
    ),
    totalExVat: Int,
  }),
  inputVat: Int,
  profit: Int,
});

const VatSchema = Type.Object({
  from: IsoDate,
  to: IsoDate,
  currency: Type.Literal('ILS'),
  taxableSales: Int,
  outputVat: Int,
  zeroRatedOrExemptSales: Int,
  fixedAssetInputVat: Int,
  otherInputVat: Int,
  inputVat: Int,
  vatPayable: Int,
  documents: Int,
  expenses: Int,
  ...LedgerVatFields,
});

export function registerReportRoutes(api: Api, _s: Services): void {
  registerSummaryRoute(api);
  registerVatReportRoutes(api);
}

function registerSummaryRoute(api: Api): void {
  api.get(
    '/businesses/:bid/reports/summary',
    {
      config: { scope: 'export' },
      schema: {
        tags,
        operationId: 'getSummaryReport',
        summary: 'Income by type and month, output VAT, expenses by category, input VAT, profit (agorot)',
        params: BidParams,
        querystring: RangeQuery,
        response: { 200: Ok({ report: SummarySchema }), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req) => ({ ok: true as const, report: await summaryReport(ctxOf(req).database.db, businessOf(req), req.query) }),
  );
}

/** The periodic VAT report and the journal lines behind it (JSON or CSV). */
function registerVatReportRoutes(api: Api): void {
  api.get(
    '/businesses/:bid/reports/vat',
    {
      config: { scope: 'export' },
      schema: {
        tags,
        operationId: 'getVatReport',
        summary: 'Periodic VAT figures: taxable and zero-rated sales, output VAT, fixed-asset and other input VAT, VAT payable (agorot)',
        params: BidParams,
        querystring: VatQuery,
        response: { 200: jsonOrCsvResponse(Ok({ report: VatSchema }), VAT_REPORT_CSV), ...errors(...AUTH_ERRORS) },
      },
    },
    async (req, reply) => {
      const b = businessOf(req);
      const report = await vatReportOf(ctxOf(req).database.db, b, req.query);
      if (prefersCsv(req.headers.accept)) return sendCsv(reply, vatReportCsvName(b, report), vatReportCsv(report));
      return { ok: true as const, report };
    },
  );

  api.get(
    '/businesses/:bid/reports/vat/lines',
    {
      config: { scope: 'export' },
      schema: {
        tags,
        operationId: 'listVatReportLines',
        summary: 'The journal entries behind the VAT report of a period, each with its document or expense (agorot), in entry order',
        params: BidParams,
        querystring: VatLinesQuery,
        response: {
          200: jsonOrCsvResponse(Ok({ lines: Type.Array(VatLineSchema), nextAfter: Nullable(Type.Integer()) }), VAT_LINES_CSV),
          ...errors(...AUTH_ERRORS),
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      if (prefersCsv(req.headers.accept)) return sendVatLinesCsv(reply, ctxOf(req).database, businessOf(req), q.period);
      const take = q.take ?? 100;
      const lines = await vatLines(ctxOf(req).database.db, businessOf(req).id, parseVatPeriod(q.period, 'querystring.period'), { after: q.after, take });
      return { ok: true as const, lines, nextAfter: lines.length === take ? lines[lines.length - 1].entryNo : null };
    },
  );
}
