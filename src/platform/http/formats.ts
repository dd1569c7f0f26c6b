/**
 * What the API accepts as a date: one definition, used by every date field of every request.
 *
 * A date is `YYYY-MM-DD`, a real day of the Gregorian calendar (no 2025-02-30, no 2023-02-29;
 * 2024-02-29 is fine), from DATE_MIN through DATE_MAX. Why that range:
 * - OPENFRMT writes every date as `YYYYMMDD` (9(8); `00000000` means "no date"), so any four-digit
 *   year fits the file; PostgreSQL's `date` carries far more. Neither is the binding limit.
 * - Two-digit years are read and written around the dates: the OPENFRMT directory is named by the
 *   production year `<YY>`, the printed export line reads `DD/MM/YY`, and receipts print `31.12.25`
 *   (read as 2025 by the OCR prefill). Within one century, 2000–2099, those are unambiguous.
 * - A tax document issued or booked with this service is not plausibly dated before 2000 or after
 *   2099 (it keeps current books; a business arriving from other software continues its numbering,
 *   it does not re-issue old documents); a year like 0202 or 2202 is a typo, refused, not booked.
 *
 * The schema side is `IsoDate` (src/platform/http/schemas.ts): ajv-formats' `date` format in its
 * default full mode checks the calendar (days in month, leap years per RFC 3339 appendix C), and
 * its `formatMinimum`/`formatMaximum` keywords check the range; both are registered by the ajv
 * instances the app builds. The functions here are the same rule for code that receives dates
 * other than through a route schema (OCR, domain checks), and the order check of a range.
 */
import { validation } from '../errors.ts';

export const DATE_MIN = '2000-01-01';
export const DATE_MAX = '2099-12-31';

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** True for `YYYY-MM-DD` naming a day that exists on the calendar, whatever the year. */
export function isCalendarDate(value: string): boolean {
  const m = SHAPE.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]);
}

/** What is wrong with a date the API was given, or null when it is a real date in range. */
export function dateProblem(value: unknown): string | null {
  if (typeof value !== 'string' || !SHAPE.test(value)) return 'must be a date YYYY-MM-DD';
  if (!isCalendarDate(value)) return `"${value}" is not a calendar date`;
  // Same-shape ISO dates compare as strings.
  if (value < DATE_MIN || value > DATE_MAX) return `must be between ${DATE_MIN} and ${DATE_MAX}`;
  return null;
}

export function isAcceptedDate(value: unknown): value is string {
  return dateProblem(value) === null;
}

/** The date itself, or a 400 `validation` naming the field. */
export function checkedDate(value: string, field: string): string {
  const problem = dateProblem(value);
  if (problem) throw validation(field, problem);
  return value;
}

/**
 * An inclusive range `from`..`to` of accepted dates (export and report ranges): each end a real
 * date in range, and `from` not after `to`. `part` is where the fields came from (`body`,
 * `querystring`), so the message names them as a schema failure would.
 */
export function checkDateRange(range: { from: string; to: string }, part: string): void {
  checkedDate(range.from, `${part}.from`);
  checkedDate(range.to, `${part}.to`);
  if (range.to < range.from) throw validation(`${part}.to`, `must not be before ${part}.from`);
}
