import type { Domain } from '../domain.ts';
import { registerExchangeRateRoutes } from './routes.ts';

/** Exchange rates: the Bank of Israel source behind its cache, and the business's agreed rates. */
export const exchangeRatesDomain: Domain = { name: 'exchange-rates', api: registerExchangeRateRoutes };
