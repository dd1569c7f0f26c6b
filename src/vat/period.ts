/**
 * A VAT reporting period (pure): one calendar month `YYYY-MM`, or two months written as an ISO 8601
 * interval of months `YYYY-MM/YYYY-MM` — a bimonthly period, which starts in an odd month (January–
 * February, March–April, … November–December), as the VAT law sets them. A single month asked of a
 * bimonthly business means its two-month period; an explicit two-month period is taken as written
 * whatever the setting (a dealer whose frequency changed reports its earlier periods as they were).
 */
import { validation } from '../platform/errors.ts';
import type { VatReportingPeriod } from '../businesses/index.ts';

export type { VatReportingPeriod };

export interface VatPeriod {
  /** As written: `2026-03` or `2026-03/2026-04`. */
  period: string;
  kind: VatReportingPeriod;
  /** First and last day, both included. */
  from: string;
  to: string;
  /** The first month `YYYYMM`: the period field of PCN874 (see docs/vat.md). */
  firstMonth: string;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

function lastDay(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function month(text: string, field: string): { y: number; m: number } {
  const match = MONTH.exec(text);
  if (!match) throw validation(field, `"${text}" is not a month YYYY-MM (a period is YYYY-MM, or YYYY-MM/YYYY-MM for two months)`);
  const y = Number(match[1]);
  if (y < 2000 || y > 2999) throw validation(field, `year ${y} is out of range`);
  return { y, m: Number(match[2]) };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The period a business reports that holds `p`: for a bimonthly business, a month widens to its pair. */
export function periodOfBusiness(p: VatPeriod, setting: VatReportingPeriod): VatPeriod {
  if (setting === 'monthly' || p.kind === 'bimonthly') return p;
  const y = Number(p.from.slice(0, 4));
  const m = Number(p.from.slice(5, 7));
  const first = m % 2 === 1 ? m : m - 1;
  return parseVatPeriod(`${y}-${pad(first)}/${y}-${pad(first + 1)}`);
}

export function parseVatPeriod(text: string, field = 'period', setting: VatReportingPeriod = 'monthly'): VatPeriod {
  return periodOfBusiness(parseAsWritten(text, field), setting);
}

function parseAsWritten(text: string, field: string): VatPeriod {
  const parts = text.split('/');
  if (parts.length > 2) throw validation(field, 'a period is YYYY-MM, or YYYY-MM/YYYY-MM for two months');
  const first = month(parts[0], field);
  let last = first;
  if (parts.length === 2) {
    last = month(parts[1], field);
    if (first.m % 2 === 0) throw validation(field, `a bimonthly period starts in an odd month: ${first.y}-${pad(first.m - 1)}/${first.y}-${pad(first.m)}`);
    if (last.y !== first.y || last.m !== first.m + 1) {
      throw validation(field, `a bimonthly period is two consecutive months: ${first.y}-${pad(first.m)}/${first.y}-${pad(first.m + 1)}`);
    }
  }
  return {
    period: text,
    kind: parts.length === 2 ? 'bimonthly' : 'monthly',
    from: `${first.y}-${pad(first.m)}-01`,
    to: `${last.y}-${pad(last.m)}-${pad(lastDay(last.y, last.m))}`,
    firstMonth: `${first.y}${pad(first.m)}`,
  };
}
