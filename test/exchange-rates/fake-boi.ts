/**
 * A local HTTP server speaking the Bank of Israel SDMX protocol of src/exchange-rates/boi-protocol.ts
 * (docs/exchange-rates.md "Source"), for tests:
 *
 *   GET /data/dataflow/BOI.STATISTICS/EXR/1.0/?c%5BDATA_TYPE%5D=OF00&startperiod=…&endperiod=…&format=csv
 *
 * 200 `text/csv; charset=utf-8` with the real header and one row per currency and published day in
 * the period, grouped by series as the Bank sends them (OBS_VALUE per 10^UNIT_MULT units: JPY 2,
 * LBP 1), 404 when the period has no row (SDMX REST "no results"), 400 on a malformed query. Days without a row are weekends and
 * holidays. Faults for the transport branches: `faults.push('500' | 'hang' | 'reset' | 'garbage')`
 * applies to the next request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const CSV_HEADER =
  'SERIES_CODE,FREQ,BASE_CURRENCY,COUNTER_CURRENCY,UNIT_MEASURE,DATA_TYPE,DATA_SOURCE,TIME_COLLECT,CONF_STATUS,PUB_WEBSITE,UNIT_MULT,COMMENTS,TIME_PERIOD,OBS_VALUE,RELEASE_STATUS';

export type Fault = '500' | 'hang' | 'reset' | 'garbage';

interface Series {
  unitMult: number;
  /** Day → OBS_VALUE as the Bank writes it. */
  values: Map<string, string>;
}

const PATH = '/data/dataflow/BOI.STATISTICS/EXR/1.0/';

export class FakeBoi {
  url = '';
  faults: Fault[] = [];
  /** Every request: the path and its query. */
  readonly log: { path: string; query: Record<string, string> }[] = [];
  private readonly series = new Map<string, Series>();
  private readonly hanging = new Set<http.ServerResponse>();
  private readonly server = http.createServer((req, res) => this.route(req, res));

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** Publishes `value` (per 10^unitMult units) for `currency` on `date`. */
  publish(currency: string, date: string, value: string, unitMult = 0): void {
    let s = this.series.get(currency);
    if (!s) {
      s = { unitMult, values: new Map() };
      this.series.set(currency, s);
    }
    s.values.set(date, value);
  }

  private route(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    this.log.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
    const fault = this.faults.shift();
    if (fault === 'hang') {
      this.hanging.add(res);
      return;
    }
    if (fault === 'reset') return req.socket.destroy();
    if (fault === '500') return this.text(res, 500, 'text/plain', 'Internal Server Error');
    if (fault === 'garbage') return this.text(res, 200, 'text/html; charset=utf-8', '<html><body>Service temporarily unavailable</body></html>');

    const q = url.searchParams;
    const day = /^\d{4}-\d{2}-\d{2}$/;
    if (req.method !== 'GET' || url.pathname !== PATH) return this.text(res, 404, 'text/plain', 'No Results Found');
    if (q.get('format') !== 'csv' || q.get('c[DATA_TYPE]') !== 'OF00' || !day.test(q.get('startperiod') ?? '') || !day.test(q.get('endperiod') ?? '')) {
      return this.text(res, 400, 'text/plain', 'Syntax error: c[DATA_TYPE], startperiod, endperiod and format=csv expected');
    }
    const from = q.get('startperiod')!;
    const to = q.get('endperiod')!;
    const rows: string[] = [];
    for (const [currency, s] of this.series) {
      for (const d of [...s.values.keys()].filter((d) => d >= from && d <= to).sort()) {
        rows.push(`RER_${currency}_ILS,D,${currency},ILS,ILS,OF00,BOI_MRKT,V,F,Y,${s.unitMult},,${d},${s.values.get(d)},YP`);
      }
    }
    if (rows.length === 0) return this.text(res, 404, 'text/plain', 'No Results Found');
    this.text(res, 200, 'text/csv; charset=utf-8', `${CSV_HEADER}\n${rows.join('\n')}\n`);
  }

  private text(res: http.ServerResponse, status: number, type: string, body: string) {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  }
}

/**
 * Rates of early March 2026 as the Bank published them (weekdays only; no rate on Tuesday 3 and
 * Wednesday 4, Purim), plus a few days before and after.
 */
export function publishMarch2026(fake: FakeBoi): void {
  const usd: Record<string, string> = {
    '2026-02-26': '3.081',
    '2026-02-27': '3.079',
    '2026-03-02': '3.073',
    '2026-03-05': '3.072',
    '2026-03-06': '3.077',
    '2026-03-09': '3.081',
    '2026-03-10': '3.09',
    '2026-03-11': '3.0855',
    '2026-03-12': '3.088',
    '2026-03-13': '3.1',
    '2026-03-16': '3.102',
    '2026-03-17': '3.097',
    '2026-03-18': '3.095',
    '2026-03-19': '3.099',
  };
  for (const [d, v] of Object.entries(usd)) fake.publish('USD', d, v);
  for (const [d, v] of Object.entries({ '2026-02-27': '1.975', '2026-03-02': '1.971', '2026-03-05': '1.958', '2026-03-06': '1.966' }))
    fake.publish('JPY', d, v, 2);
  for (const d of ['2026-03-02', '2026-03-05', '2026-03-06']) fake.publish('LBP', d, '0.0003', 1);
  for (const [d, v] of Object.entries({ '2026-03-02': '3.5601', '2026-03-05': '3.544', '2026-03-06': '3.5499' })) fake.publish('EUR', d, v);
}
