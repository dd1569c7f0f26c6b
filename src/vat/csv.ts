/**
 * The VAT report and its traceable lines as CSV (platform/http/csv.ts): the report one figure a row, the
 * lines one entry a row with a `total` row whose sums are the report's figures. The lines' CSV carries
 * every line of the period (no paging): the report and its lines are read in one repeatable-read
 * snapshot, so the totals tie to the report read with them.
 */
import type { FastifyReply } from 'fastify';
import type { Database } from '../platform/db/engine.ts';
import { csvFile, csvFileName, money, sendCsv, type CsvCell } from '../platform/http/csv.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { parseVatPeriod } from './period.ts';
import { allVatLines, ledgerVatReport, type LedgerVatReport, type VatLine } from './report.ts';

/** The descriptions of the CSV answers, for the routes' `jsonOrCsvResponse`. */
export const VAT_REPORT_CSV = 'one row per figure (`figure`, `value`; nested figures as `sales.taxable`, counts as whole numbers)';
export const VAT_LINES_CSV = "every line of the period (no paging) and a `total` row equal to the report's figures";

/** Figures that count things; every other number of a report is an amount in agorot. */
const COUNTS = new Set(['count', 'documents', 'expenses']);

function figureRows(value: unknown, path: string[], rows: CsvCell[][]): void {
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) figureRows(v, [...path, k], rows);
    return;
  }
  const name = path.join('.');
  if (typeof value === 'number') rows.push([name, COUNTS.has(path.at(-1)!) ? value : money(value)]);
  else if (value !== null && value !== undefined) rows.push([name, String(value)]);
}

/** The rows' order, whichever form of the report and however its object was built; other fields follow. */
const FIGURE_ORDER = [
  'period',
  'kind',
  'from',
  'to',
  'currency',
  'source',
  'outputVat',
  'inputVat',
  'inputVatFixedAssets',
  'vatPayable',
  'sales',
  'inputs',
  'adjustments',
  'taxableSales',
  'zeroRatedOrExemptSales',
  'fixedAssetInputVat',
  'otherInputVat',
  'documents',
  'expenses',
];
const rank = (key: string) => (FIGURE_ORDER.includes(key) ? FIGURE_ORDER.indexOf(key) : FIGURE_ORDER.length);

/** `GET reports/vat` as CSV: either form of the report (`period`, or `from`/`to`), one figure a row. */
export function vatReportCsv(report: object): Buffer {
  const rows: CsvCell[][] = [];
  const ordered = Object.entries(report).sort(([a], [b]) => rank(a) - rank(b));
  for (const [key, value] of ordered) figureRows(value, [key], rows);
  return csvFile(['figure', 'value'], rows);
}

export function vatReportCsvName(business: Pick<BusinessRecord, 'taxId'>, report: { period?: string; from: string; to: string }): string {
  return report.period ? csvFileName('vat', business.taxId, report.period) : csvFileName('vat', business.taxId, report.from, report.to);
}

export const VAT_LINES_HEADER = [
  'entryNo',
  'entryDate',
  'source',
  'treatment',
  'docType',
  'reference',
  'date',
  'counterparty',
  'counterpartyTaxId',
  'allocationNumber',
  'salesExVat',
  'inputsExVat',
  'outputVat',
  'inputVat',
  'inputVatFixedAssets',
];

function lineRow(l: VatLine): CsvCell[] {
  const d = l.document;
  const e = l.expense;
  const isExpense = e !== null;
  return [
    l.entryNo,
    l.entryDate,
    l.source,
    l.treatment,
    d?.docType ?? null,
    d ? d.docNumber : (e?.supplierDocNumber ?? null),
    d?.date ?? e?.date ?? null,
    d?.partyName ?? e?.supplierName ?? null,
    d?.partyTaxId ?? e?.supplierTaxId ?? null,
    d?.allocationNumber ?? e?.allocationNumber ?? null,
    isExpense ? null : money(l.exVat),
    isExpense ? money(l.exVat) : null,
    money(l.outputVat),
    money(l.inputVat),
    money(l.inputVatFixedAssets),
  ];
}

/**
 * The lines and their `total` row: sales ex VAT (all revenue of the period, any source) = the report's
 * sales by treatment added up, inputs ex VAT = `inputs.exVat`, and each VAT figure = the report's.
 */
export function vatLinesCsv(report: LedgerVatReport, lines: VatLine[]): Buffer {
  const sum = (pick: (l: VatLine) => number) => lines.reduce((a, l) => a + pick(l), 0);
  const total: CsvCell[] = [
    null,
    null,
    'total',
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    money(sum((l) => (l.expense ? 0 : l.exVat))),
    money(sum((l) => (l.expense ? l.exVat : 0))),
    money(report.outputVat),
    money(report.inputVat),
    money(report.inputVatFixedAssets),
  ];
  return csvFile(VAT_LINES_HEADER, [...lines.map(lineRow), total]);
}

/** `GET reports/vat/lines?period=` as CSV: the report and every line from one snapshot. */
export async function vatLinesCsvOf(database: Database, business: BusinessRecord, periodText: string): Promise<{ name: string; bytes: Buffer }> {
  const asked = parseVatPeriod(periodText, 'querystring.period', business.vatReportingPeriod);
  const { report, lines } = await database.db.transaction(
    async (tx) => {
      const report = await ledgerVatReport(tx, business.id, asked);
      return { report, lines: await allVatLines(tx, business.id, asked) };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
  return { name: csvFileName('vat-lines', business.taxId, report.period), bytes: vatLinesCsv(report, lines) };
}

export async function sendVatLinesCsv(reply: FastifyReply, database: Database, business: BusinessRecord, periodText: string): Promise<FastifyReply> {
  const { name, bytes } = await vatLinesCsvOf(database, business, periodText);
  return sendCsv(reply, name, bytes);
}
