/**
 * ISO 4217 currencies (issue 21) from the `currency-codes` package, which carries the ISO list with
 * each code's minor units. Precious metals, bond units, SDRs and test codes (ISO's "N.A." minor
 * units, listed by the package under pseudo-countries "ZZ…") are not money a document can be in.
 */
import currencyCodes from 'currency-codes';

export interface Currency {
  code: string;
  /** Decimal places of the minor unit: 0 for JPY, 2 for USD, 3 for KWD. */
  minorUnits: number;
  name: string;
}

export const SHEKEL = 'ILS';

/** ISO's fund codes and accounting units: listed beside a country's currency, never invoiced in. */
const NOT_MONEY = new Set(['BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW', 'XDR', 'XSU', 'XUA']);

const CURRENCIES: ReadonlyMap<string, Currency> = new Map(
  currencyCodes.data
    .filter((c) => !NOT_MONEY.has(c.code) && !c.countries.some((country) => /^zz/i.test(country)))
    .map((c) => [c.code, { code: c.code, minorUnits: c.digits, name: c.currency }] as const),
);

/** Every code a document may be in, sorted (the OpenAPI enum). */
export const CURRENCY_CODES: readonly string[] = [...CURRENCIES.keys()].sort();

export function currencyOf(code: string): Currency | undefined {
  return CURRENCIES.get(code);
}

export function isCurrencyCode(code: string): boolean {
  return CURRENCIES.has(code);
}

/** Minor units of a known code (throws on an unknown one: callers validate codes at the door). */
export function minorUnitsOf(code: string): number {
  const c = CURRENCIES.get(code);
  if (!c) throw new Error(`unknown currency ${code}`);
  return c.minorUnits;
}
