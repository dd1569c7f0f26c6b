/**
 * What the exchange-rate functions need from the process: the clock and the rate source. The
 * source is the Bank of Israel client when EXCHANGE_RATES_URL is configured, none otherwise
 * (then a foreign-currency document must carry its own rate). Tests swap the source per Services.
 */
import type { Config } from '../platform/config.ts';
import type { Clock } from '../platform/clock.ts';
import type { Services } from '../platform/http/services.ts';
import { BoiClient } from './boi-client.ts';
import type { ExchangeRateProvider } from './provider.ts';

export interface ExchangeRateDeps {
  clock: Clock;
  /** Null: no source configured. */
  provider: ExchangeRateProvider | null;
}

declare module '../platform/http/services.ts' {
  interface Services {
    /** Made once by the composition root (src/services.ts); null: no source configured. */
    exchangeRateProvider: ExchangeRateProvider | null;
  }
}

export function createExchangeRateProvider(config: Config): ExchangeRateProvider | null {
  const { baseUrl, timeoutMs } = config.exchangeRates;
  return baseUrl ? new BoiClient(baseUrl, timeoutMs) : null;
}

/** Tests (and embedders): answer rates from this source instead (null: none configured). */
export function setExchangeRateProvider(s: Services, provider: ExchangeRateProvider | null): void {
  s.exchangeRateProvider = provider;
}

export function exchangeRateDeps(s: Services): ExchangeRateDeps {
  return { clock: s.clock, provider: s.exchangeRateProvider };
}
