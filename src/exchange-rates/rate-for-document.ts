/**
 * The rate a document of a given date uses (docs/exchange-rates.md "Which rate"): the business's
 * agreed rate effective on that date, else the Bank of Israel representative rate last published
 * on or before it (cache first, then the Bank once). Never a made-up rate: without a source, or
 * when the Bank cannot be reached and the day is not cached, the caller must send the rate.
 */
import type { Executor } from '../platform/db/engine.ts';
import { unconfigured, validation } from '../platform/errors.ts';
import { israelDate } from '../platform/clock.ts';
import { isCurrencyCode, SHEKEL } from '../platform/currencies.ts';
import { businessRateOn } from './business-rates.ts';
import { cachedBoiRate, storeBoiRate } from './boi-cache.ts';
import { ExchangeRateTransportError } from './provider.ts';
import { canonicalDecimal, rateProblem } from './decimal.ts';
import type { ExchangeRateDeps } from './deps.ts';

/** Where a rate the service finds comes from: the Bank of Israel, or the business's agreed rate. */
export const RATE_SOURCES = ['boi', 'business'] as const;
export type RateSource = (typeof RATE_SOURCES)[number];

export interface DocumentRate {
  /** Shekels for ONE unit of the currency, a decimal string. */
  rate: string;
  /** The day the rate is of: the Bank's publication day, or the agreed rate's effective-from day. */
  date: string;
  source: RateSource;
}

const SEND_RATE = 'send `exchangeRate` with the document';

export async function rateForDocument(
  deps: ExchangeRateDeps,
  ex: Executor,
  { businessId, currency, documentDate }: { businessId: string; currency: string; documentDate: string },
): Promise<DocumentRate> {
  if (currency === SHEKEL) throw validation('currency', 'a document in shekels has no exchange rate');
  if (!isCurrencyCode(currency)) throw validation('currency', `"${currency}" is not an ISO 4217 currency code`);
  const now = deps.clock.now();
  const today = israelDate(now);
  if (documentDate > today) {
    throw validation('date', `${documentDate} is after today (${today}, Israel time): no representative rate is known for a future day`);
  }
  const agreed = await businessRateOn(ex, businessId, currency, documentDate);
  if (agreed) return { rate: agreed.rate, date: agreed.effectiveFrom, source: 'business' };

  const cached = await cachedBoiRate(ex, currency, documentDate);
  if (cached) return { ...cached, source: 'boi' };
  if (!deps.provider) {
    throw unconfigured(
      `no exchange-rate source is configured on this server (EXCHANGE_RATES_URL): ${SEND_RATE}, or set an agreed rate (PUT /v1/businesses/{bid}/exchange-rates/${currency})`,
    );
  }
  let found;
  try {
    found = await deps.provider.rateOn(currency, documentDate);
  } catch (err) {
    if (!(err instanceof ExchangeRateTransportError)) throw err;
    throw unconfigured(`the Bank of Israel representative rate of ${currency} for ${documentDate} is not available (${err.message}): ${SEND_RATE}`);
  }
  if (found && (rateProblem(found.rate) || !/^\d{4}-\d{2}-\d{2}$/.test(found.date) || found.date > documentDate)) {
    // A source answering nonsense is a broken source: never passed on as a rate.
    throw unconfigured(`the exchange-rate source answered an unusable rate of ${currency} for ${documentDate} (${found.rate} of ${found.date}): ${SEND_RATE}`);
  }
  if (!found) {
    throw validation(
      'currency',
      `the Bank of Israel published no representative rate of ${currency} on or shortly before ${documentDate}: ${SEND_RATE}, or set an agreed rate (PUT /v1/businesses/{bid}/exchange-rates/${currency})`,
    );
  }
  const rate = canonicalDecimal(found.rate)!;
  await storeBoiRate(ex, { at: now, currency, asked: documentDate, found: { rate, date: found.date }, today });
  return { rate, date: found.date, source: 'boi' };
}
