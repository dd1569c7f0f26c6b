// Amounts, dates and rates as printed, per currency and language. Pure; unit-tested.
import { formatDate } from './hebrew.ts';
import type { Language, RenderCurrency } from './model.ts';

export const SHEKEL: RenderCurrency = { code: 'ILS', minorUnits: 2 };

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const group = (digits: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** Minor units → "1,234.567" with exactly `minorUnits` decimals (none for 0); minus sign in front. */
export function formatMinor(minor: number, minorUnits: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = BigInt(Math.abs(Math.round(minor)));
  const scale = 10n ** BigInt(minorUnits);
  const whole = group((abs / scale).toString());
  if (minorUnits === 0) return `${sign}${whole}`;
  return `${sign}${whole}.${(abs % scale).toString().padStart(minorUnits, '0')}`;
}

/**
 * An amount for an LTR cell. Shekels keep the sign: "₪1,234.56" / "-₪3.00" (as before issue 21).
 * Other currencies print their ISO code, never a symbol ("$" is a dozen currencies): "USD 1,234.56",
 * "JPY 1,235", "KWD 1.235", "USD -10.50". Same in every language: Israeli usage writes amounts with
 * a comma for thousands and a point for decimals, as English does.
 */
export function formatAmount(minor: number, currency: RenderCurrency = SHEKEL): string {
  const digits = formatMinor(minor, currency.minorUnits);
  if (currency.code === 'ILS') return digits.startsWith('-') ? `-₪${digits.slice(1)}` : `₪${digits}`;
  return `${currency.code} ${digits}`;
}

/**
 * A date as printed. Hebrew (and bilingual, Hebrew first) pages use the Israeli DD/MM/YYYY; English
 * pages spell the month ("1 Mar 2026"), which no reader can take for March 1st vs January 3rd.
 */
export function formatDateIn(isoDate: string, lang: Language): string {
  if (lang !== 'en') return formatDate(isoDate);
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(isoDate);
  if (!m) return isoDate;
  const month = MONTHS[Number(m[2]) - 1];
  return month ? `${Number(m[3])} ${month} ${m[1]}` : isoDate;
}

/**
 * "USD 1 = ₪3.7210": the rate exactly as recorded (a decimal string), never re-rounded. The code
 * comes first, as in the amounts, so that inside a Hebrew line the whole run stays left to right
 * ("1 USD" after Hebrew would be split by the bidi algorithm into "USD … 1").
 */
export function formatExchangeRate(rate: string, code: string): string {
  return `${code} 1 = ₪${rate.trim()}`;
}
