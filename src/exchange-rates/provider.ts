/**
 * The source of representative rates as the rest of the service sees it. The real one is the
 * Bank of Israel client (boi-client.ts); tests inject their own (deps.ts). A provider answers
 * what it knows or throws ExchangeRateTransportError: it never makes a rate up.
 */

/** A rate in shekels for ONE unit of the currency (decimal string), and the day it was published for. */
export interface PublishedRate {
  rate: string;
  date: string;
}

export interface ExchangeRateProvider {
  /** The last rate published on or before `date` (YYYY-MM-DD), or null when there is none. */
  rateOn(currency: string, date: string): Promise<PublishedRate | null>;
}

/** The source could not be asked or did not answer usably (network, timeout, HTTP error, garbage). */
export class ExchangeRateTransportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExchangeRateTransportError';
  }
}
