-- Documents in a foreign currency and in English (issue 21; docs/currency.md).
-- Amounts of a document (lines, payments, the totals columns) are in its currency's minor units;
-- the shekel figures are computed at issue and frozen in the snapshot (`ils`). An issued row is
-- frozen whole by documents_guard_update (0002), so these columns need no rule of their own.
ALTER TABLE documents
  ADD COLUMN currency text NOT NULL DEFAULT 'ILS' CHECK (currency ~ '^[A-Z]{3}$'),
  -- Shekels for one unit of the currency, as given (decimal text, never a float); null for ILS and
  -- on a draft that takes the rate of its date at issue.
  ADD COLUMN exchange_rate text CHECK (exchange_rate ~ '^\d{1,6}(\.\d{1,10})?$'),
  ADD COLUMN exchange_rate_date date,
  ADD COLUMN exchange_rate_source text CHECK (exchange_rate_source IN ('boi', 'business', 'request')),
  ADD COLUMN language text NOT NULL DEFAULT 'he' CHECK (language IN ('he', 'en', 'he+en')),
  ADD CONSTRAINT documents_shekel_has_no_rate CHECK (currency <> 'ILS' OR exchange_rate IS NULL),
  ADD CONSTRAINT documents_issued_foreign_has_rate CHECK (
    status = 'draft' OR currency = 'ILS' OR (exchange_rate IS NOT NULL AND exchange_rate_date IS NOT NULL AND exchange_rate_source IS NOT NULL));

-- B100/1367 and 1369: a journal line of a foreign-currency fact carries the currency and the amount
-- in it (minor units); null for shekel lines. Written once, like the rest of the line.
ALTER TABLE journal_lines
  ADD COLUMN currency text CHECK (currency ~ '^[A-Z]{3}$'),
  ADD COLUMN foreign_amount bigint,
  ADD CONSTRAINT journal_lines_foreign_pair CHECK ((currency IS NULL) = (foreign_amount IS NULL));
