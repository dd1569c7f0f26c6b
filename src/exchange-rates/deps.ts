/**
 * What the exchange-rate functions need from the process: the clock and the rate source. The
 * source is the Bank of Israel client when EXCHANGE_RATES_URL is configured, none otherwise
 * (then a foreign-currency document must carry its own rate). Tests swap the source per Services.
 */
import type { Clock } from '../platform/clock.ts';
import type { Services } from '../platform/http/services.ts';
import { BoiClient } from './boi-client.ts';
import type { ExchangeRateProvider } from './provider.ts';

export interface ExchangeRateDeps {
  clock: Clock;
  /** Null: no source configured. */
  provider: ExchangeRateProvider | null;
}

const overrides = new WeakMap<Services, ExchangeRateProvider | null>();
const clients = new WeakMap<Services, BoiClient>();

/** Tests (and embedders): answer rates from this source instead (null: none configured). */
export function setExchangeRateProvider(s: Services, provider: ExchangeRateProvider | null): void {
  overrides.set(s, provider);
}

export function exchangeRateDeps(s: Services): ExchangeRateDeps {
  if (overrides.has(s)) return { clock: s.clock, provider: overrides.get(s) ?? null };
  const { baseUrl, timeoutMs } = s.config.exchangeRates;
  if (!baseUrl) return { clock: s.clock, provider: null };
  let client = clients.get(s);
  if (!client) {
    client = new BoiClient(baseUrl, timeoutMs);
    clients.set(s, client);
  }
  return { clock: s.clock, provider: client };
}
