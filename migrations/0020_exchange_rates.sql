-- Exchange rates (issue 21): the shekel value of ONE unit of a foreign currency, as an exact decimal
-- string (never a float), for documents in foreign currencies. See src/exchange-rates and
-- docs/exchange-rates.md.

-- A rate: positive, at most 12 integer digits and 10 decimals, canonical (no leading zeros).
CREATE FUNCTION exchange_rate_text_ok(r text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT r ~ '^(0|[1-9][0-9]{0,11})(\.[0-9]{1,10})?$' AND r !~ '^0(\.0+)?$'
$$;

-- The Bank of Israel representative rates already fetched, shared by every business (public data).
-- One row per currency and day asked about: the rate that applies to that day is the last one
-- published on or before it (a weekend or holiday takes the last business day's rate), so
-- `rate_date` is that publication day. A day is fetched once; the row is never changed.
CREATE TABLE boi_exchange_rates (
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$' AND currency <> 'ILS'),
  for_date date NOT NULL,
  rate_date date NOT NULL CHECK (rate_date <= for_date),
  rate text NOT NULL CHECK (exchange_rate_text_ok(rate)),
  fetched_at timestamptz(3) NOT NULL,
  PRIMARY KEY (currency, for_date)
);

-- Rates a business agreed with its customers instead of the representative rate: effective from a
-- date until a later row of the same currency takes over. Set, replaced and removed only through
-- the API (PUT / DELETE /v1/businesses/{bid}/exchange-rates/...), each change in the business's audit chain.
CREATE TABLE business_exchange_rates (
  business_id text NOT NULL REFERENCES businesses(id),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$' AND currency <> 'ILS'),
  effective_from date NOT NULL,
  rate text NOT NULL CHECK (exchange_rate_text_ok(rate)),
  created_at timestamptz(3) NOT NULL,
  created_by_key_id text,
  PRIMARY KEY (business_id, currency, effective_from)
);
