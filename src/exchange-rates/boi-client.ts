/**
 * The real client of the Bank of Israel's representative rates (boi-protocol.ts): one GET of the
 * rates over a short window ending on the day asked; the currency's last row wins.
 */
import { BOI_CURRENCIES, BoiFormatError, daysBefore, latestOnOrBefore, parseBoiCsv, ratesUrl } from './boi-protocol.ts';
import { ExchangeRateTransportError, type ExchangeRateProvider, type PublishedRate } from './provider.ts';

/**
 * How far back a day looks for its rate. The longest run of days without a rate is a holiday next
 * to a weekend (about five days); two weeks leaves room without reading a long series.
 */
export const LOOKBACK_DAYS = 14;

export class BoiClient implements ExchangeRateProvider {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async rateOn(currency: string, date: string): Promise<PublishedRate | null> {
    // The Bank publishes a fixed list: asking for another currency would only fetch a "no results".
    if (!BOI_CURRENCIES.includes(currency)) return null;
    const url = ratesUrl(this.baseUrl, daysBefore(date, LOOKBACK_DAYS), date);
    const { status, text } = await this.get(url);
    // SDMX REST: 404 is "no results" (no row in the window), not a broken service.
    if (status === 404) return null;
    if (status !== 200) throw new ExchangeRateTransportError(`the Bank of Israel answered HTTP ${status}`);
    let observations;
    try {
      observations = parseBoiCsv(text).filter((o) => o.currency === currency);
    } catch (err) {
      if (err instanceof BoiFormatError) throw new ExchangeRateTransportError(err.message);
      throw err;
    }
    const last = latestOnOrBefore(observations, date);
    return last ? { rate: last.rate, date: last.date } : null;
  }

  private async get(url: string): Promise<{ status: number; text: string }> {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(url, { headers: { accept: 'text/csv' }, signal: AbortSignal.timeout(this.timeoutMs) });
        return { status: res.status, text: await res.text() };
      } catch (err) {
        const e = err as Error;
        if (e.name === 'TimeoutError' || e.name === 'AbortError') {
          throw new ExchangeRateTransportError(`the Bank of Israel did not answer within ${this.timeoutMs} ms`);
        }
        // Once more on a broken connection: a kept-alive socket the server closed meanwhile fails the first try.
        if (attempt < 2) continue;
        // fetch says only "fetch failed": the reason (ECONNREFUSED, ENOTFOUND, a reset) is its cause.
        const cause = (e as { cause?: { code?: string; message?: string } }).cause;
        const why = cause ? ` (${cause.code ?? cause.message})` : '';
        throw new ExchangeRateTransportError(`cannot reach the Bank of Israel: ${e.message}${why}`);
      }
    }
  }
}
