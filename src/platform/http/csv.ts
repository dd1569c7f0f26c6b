/**
 * CSV answers (RFC 4180) for the reports an accountant opens in a spreadsheet: records end with CR LF,
 * a field holding a comma, a quote, CR or LF is quoted and its quotes doubled, the first record names
 * the columns. UTF-8 with a byte order mark, so that Excel reads Hebrew as UTF-8. Amounts are decimal
 * shekels with two decimals (`1234.56`, `-12.00`). A route answers CSV when the request's `Accept`
 * prefers `text/csv` over JSON (docs/ledger.md "CSV answers").
 */
import type { FastifyReply } from 'fastify';
import { Type, type TSchema } from 'typebox';

export const CSV_MEDIA_TYPE = 'text/csv';
const BOM = '\uFEFF';
const CRLF = '\r\n';

/** An amount in agorot, written as decimal shekels. */
export interface Money {
  agorot: number;
}
export const money = (agorot: number): Money => ({ agorot });

/** A text, a whole number (written as is), an amount, or empty. */
export type CsvCell = string | number | Money | null | undefined;

/** Agorot as decimal shekels with two decimals: 123456 → `1234.56`, −1200 → `-12.00`, exact for any safe integer. */
export function shekelsText(agorot: number): string {
  if (!Number.isSafeInteger(agorot)) throw new RangeError(`not a whole number of agorot: ${agorot}`);
  const abs = Math.abs(agorot);
  const whole = Math.floor(abs / 100);
  const cents = String(abs % 100).padStart(2, '0');
  return `${agorot < 0 ? '-' : ''}${whole}.${cents}`;
}

/**
 * A text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading `'`
 * (OWASP "CSV injection"): names and descriptions come from the callers' customers. Numbers and amounts
 * are never texts here, so a negative amount stays a number.
 */
function inert(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

export function csvField(cell: CsvCell): string {
  if (cell === null || cell === undefined) return '';
  let text: string;
  if (typeof cell === 'number') {
    if (!Number.isSafeInteger(cell)) throw new RangeError(`a CSV number is a whole number: ${cell}`);
    text = String(cell);
  } else if (typeof cell === 'object') {
    text = shekelsText(cell.agorot);
  } else {
    text = inert(cell);
  }
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRecord(cells: readonly CsvCell[]): string {
  return cells.map(csvField).join(',') + CRLF;
}

/** The whole file: BOM, the header record, the rows. */
export function csvFile(header: readonly string[], rows: Iterable<readonly CsvCell[]>): Buffer {
  const parts = [BOM, csvRecord(header)];
  for (const row of rows) {
    if (row.length !== header.length) throw new RangeError(`a CSV row of ${row.length} fields under a header of ${header.length}`);
    parts.push(csvRecord(row));
  }
  return Buffer.from(parts.join(''), 'utf8');
}

/** Media ranges of an `Accept` header with their weights (RFC 9110 §12.5.1). */
function acceptRanges(accept: string): { type: string; q: number }[] {
  return accept.split(',').map((part) => {
    const [type, ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    return { type, q: Number.isFinite(q) ? q : 0 };
  });
}

function weightOf(ranges: { type: string; q: number }[], mediaType: string): number {
  const [major] = mediaType.split('/');
  const exact = ranges.find((r) => r.type === mediaType);
  if (exact) return exact.q;
  const family = ranges.find((r) => r.type === `${major}/*`);
  if (family) return family.q;
  return ranges.find((r) => r.type === '*/*')?.q ?? 0;
}

/** True when `Accept` names `text/csv` and weighs it above JSON; JSON on a tie, with no header, or `*\/*`. */
export function prefersCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = acceptRanges(accept);
  if (!ranges.some((r) => r.type === CSV_MEDIA_TYPE)) return false;
  const csv = weightOf(ranges, CSV_MEDIA_TYPE);
  return csv > 0 && csv > weightOf(ranges, 'application/json');
}

/** A file name for Content-Disposition: ASCII letters, digits, dot, hyphen and underscore only. */
export function csvFileName(...parts: string[]): string {
  return `${parts.map((p) => p.replace(/[^A-Za-z0-9._-]+/g, '-')).join('-')}.csv`;
}

export function sendCsv(reply: FastifyReply, fileName: string, bytes: Buffer): FastifyReply {
  return reply
    .header('Content-Type', `${CSV_MEDIA_TYPE}; charset=utf-8; header=present`)
    .header('Content-Disposition', `attachment; filename="${fileName}"`)
    .send(bytes);
}

/**
 * The 200 of a route that answers JSON, or CSV when asked: both media types in the document, the CSV as
 * bytes (the contract tests read a non-JSON answer as binary), with its Content-Disposition.
 */
export function jsonOrCsvResponse(json: TSchema, csvDescription: string) {
  return {
    description: `JSON; with \`Accept: text/csv\`, ${csvDescription} (RFC 4180, UTF-8 with BOM, amounts in shekels with 2 decimals)`,
    headers: { 'Content-Disposition': Type.String({ description: 'With text/csv: `attachment; filename="…csv"`.' }) },
    content: {
      'application/json': { schema: json },
      [CSV_MEDIA_TYPE]: { schema: { type: 'string', format: 'binary' } },
    },
  };
}
