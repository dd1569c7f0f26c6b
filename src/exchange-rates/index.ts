/**
 * Exchange rates (issue 21): what the documents side calls. `rateForDocument(exchangeRateDeps(s),
 * executor, businessId, currency, documentDate)` answers the rate a foreign-currency document uses.
 */
export { rateForDocument, type DocumentRate, type RateSource } from './rate-for-document.ts';
export { exchangeRateDeps, setExchangeRateProvider, type ExchangeRateDeps } from './deps.ts';
export { ExchangeRateTransportError, type ExchangeRateProvider, type PublishedRate } from './provider.ts';
export { BoiClient } from './boi-client.ts';
export { BOI_CURRENCIES } from './boi-protocol.ts';
export { canonicalDecimal, rateProblem, RATE_PATTERN } from './decimal.ts';
export { registerExchangeRateRoutes } from './routes.ts';
