/**
 * The Bank of Israel's SDMX service as this client speaks it (docs/exchange-rates.md "Source"):
 *
 *   GET {base}/data/dataflow/BOI.STATISTICS/EXR/1.0/?c%5BDATA_TYPE%5D=OF00&startperiod=YYYY-MM-DD&endperiod=YYYY-MM-DD&format=csv
 *
 * (the representative rates, DATA_TYPE OF00, of every currency in the period) answers `text/csv`
 * with a header row and one row per currency and published day, e.g.
 *
 *   SERIES_CODE,FREQ,BASE_CURRENCY,COUNTER_CURRENCY,UNIT_MEASURE,DATA_TYPE,DATA_SOURCE,TIME_COLLECT,CONF_STATUS,PUB_WEBSITE,UNIT_MULT,COMMENTS,TIME_PERIOD,OBS_VALUE,RELEASE_STATUS
 *   RER_JPY_ILS,D,JPY,ILS,ILS,OF00,BOI_MRKT,V,F,Y,2,,2026-03-02,1.971,YP
 *
 * OBS_VALUE is shekels per 10^UNIT_MULT units (JPY per 100, LBP per 10). Days without publication
 * (weekends, holidays) have no row. Pure functions: parsing and the URL.
 */
import { canonicalDecimal, shiftDecimalLeft } from './decimal.ts';

/** The currencies the Bank of Israel publishes a representative rate for (daily series RER_{CCY}_ILS). */
export const BOI_CURRENCIES: readonly string[] = ['AUD', 'CAD', 'CHF', 'DKK', 'EGP', 'EUR', 'GBP', 'JOD', 'JPY', 'LBP', 'NOK', 'SEK', 'USD', 'ZAR'];

/** One published representative rate, normalised to shekels for ONE unit. */
export interface BoiObservation {
  currency: string;
  date: string;
  rate: string;
}

export class BoiFormatError extends Error {
  constructor(message: string) {
    super(`the Bank of Israel answer could not be read: ${message}`);
    this.name = 'BoiFormatError';
  }
}

/** The representative rates of every currency from `from` through `to`: the query of a recorded real answer. */
export function ratesUrl(baseUrl: string, from: string, to: string): string {
  const q = new URLSearchParams({ 'c[DATA_TYPE]': 'OF00', startperiod: from, endperiod: to, format: 'csv' });
  return `${baseUrl}/data/dataflow/BOI.STATISTICS/EXR/1.0/?${q.toString()}`;
}

/** One CSV record split on commas, double-quoted fields (with "" inside) respected. */
export function csvFields(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(field);
      field = '';
    } else field += c;
  }
  out.push(field);
  return out;
}

const REQUIRED = ['BASE_CURRENCY', 'TIME_PERIOD', 'OBS_VALUE'] as const;

/**
 * The observations of a CSV answer, oldest first. Columns are found by name (the service may add
 * or reorder columns). A row without a value is skipped (not yet published); a value or UNIT_MULT
 * that is not a number makes the whole answer unreadable rather than inventing a rate.
 */
export function parseBoiCsv(text: string): BoiObservation[] {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
  if (lines.length === 0) return [];
  const header = csvFields(lines[0]).map((h) => h.trim().toUpperCase());
  const col = (name: string) => header.indexOf(name);
  for (const name of REQUIRED) if (col(name) < 0) throw new BoiFormatError(`no ${name} column in "${lines[0].slice(0, 120)}"`);
  const out: BoiObservation[] = [];
  for (const line of lines.slice(1)) {
    const f = csvFields(line).map((v) => v.trim());
    const cell = (name: string) => (col(name) >= 0 ? (f[col(name)] ?? '') : '');
    const value = cell('OBS_VALUE');
    const date = cell('TIME_PERIOD');
    if (value === '' || value.toUpperCase() === 'NAN') continue;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new BoiFormatError(`TIME_PERIOD "${date}" is not a day`);
    const multRaw = cell('UNIT_MULT') || '0';
    if (!/^\d{1,2}$/.test(multRaw)) throw new BoiFormatError(`UNIT_MULT "${multRaw}" on ${date} is not a whole number`);
    const rate = shiftDecimalLeft(value, Number(multRaw));
    if (rate === null || canonicalDecimal(rate) === null) throw new BoiFormatError(`OBS_VALUE "${value}" on ${date} is not a decimal number`);
    if (!/[1-9]/.test(rate)) continue;
    out.push({ currency: cell('BASE_CURRENCY').toUpperCase(), date, rate });
  }
  return out.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/** The last observation on or before `date`, or null. */
export function latestOnOrBefore(observations: BoiObservation[], date: string): BoiObservation | null {
  let best: BoiObservation | null = null;
  for (const o of observations) if (o.date <= date && (!best || o.date > best.date)) best = o;
  return best;
}

/** `date` minus `days` calendar days, YYYY-MM-DD. */
export function daysBefore(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString().slice(0, 10);
}
