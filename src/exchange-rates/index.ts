/**
 * Exchange rates (issue 21): what the documents side calls. `rateForDocument(exchangeRateDeps(s),
 * executor, businessId, currency, documentDate)` answers the rate a foreign-currency document uses.
 */
export { rateForDocument } from './rate-for-document.ts';
export { createExchangeRateProvider, exchangeRateDeps, setExchangeRateProvider } from './deps.ts';
export type { ExchangeRateProvider } from './provider.ts';
