import { Type } from 'typebox';
import { IsoDate } from '../platform/http/schemas.ts';
import { validation } from '../platform/errors.ts';
import { isCurrencyCode, SHEKEL } from '../platform/currencies.ts';
import { RATE_PATTERN } from './decimal.ts';
import { enumOf } from '../platform/http/enums.ts';
import { RATE_SOURCES } from './rate-for-document.ts';

const Bid = Type.String({ minLength: 1, maxLength: 64 });
const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of a foreign currency (not ILS), e.g. USD' });

export const Rate = Type.String({
  pattern: RATE_PATTERN,
  description: 'Shekels for ONE unit of the currency, a decimal string (e.g. "3.7125"): more than zero, at most 12 integer digits and 10 decimals',
});

export const CurrencyParams = Type.Object({ bid: Bid, currency: CurrencyCode }, { additionalProperties: false });
export const CurrencyDateParams = Type.Object({ bid: Bid, currency: CurrencyCode, effectiveFrom: IsoDate }, { additionalProperties: false });

export const RateQuery = Type.Object(
  { date: Type.Optional({ ...IsoDate, description: 'The document date; default today (Israel time)' }) },
  { additionalProperties: false },
);
export const ListQuery = Type.Object({ currency: Type.Optional(CurrencyCode) }, { additionalProperties: false });

export const RateBody = Type.Object(
  { rate: Rate, effectiveFrom: { ...IsoDate, description: 'The first document date the rate applies to (until a later one of the same currency)' } },
  { additionalProperties: false },
);

export const DocumentRateView = Type.Object({
  currency: Type.String(),
  rate: Type.String({ description: 'Shekels for ONE unit of the currency, a decimal string' }),
  date: Type.String({ description: 'The day of the rate: the Bank of Israel publication day, or the effective-from day of an agreed rate' }),
  source: enumOf(RATE_SOURCES, {
    description: "`boi`: Bank of Israel representative rate; `business`: the business's agreed rate",
  }),
});

export const BusinessRate = Type.Object({
  currency: Type.String(),
  effectiveFrom: Type.String(),
  rate: Type.String(),
  createdAt: Type.String(),
});

/** A currency of a rate: a known ISO code, never the shekel. */
export function checkForeignCurrency(currency: string, field = 'params.currency'): void {
  if (currency === SHEKEL) throw validation(field, 'the shekel has no exchange rate: name a foreign currency');
  if (!isCurrencyCode(currency)) throw validation(field, `"${currency}" is not an ISO 4217 currency code`);
}
