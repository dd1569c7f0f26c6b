-- The business's VAT reporting period (issue 20): `monthly` or `bimonthly`, as the VAT office set the dealer.
-- `period=YYYY-MM` of the VAT report and the PCN874 file then means the business's period that holds the month
-- (docs/vat.md "Periods"). Existing businesses report monthly, the default.
ALTER TABLE businesses ADD COLUMN vat_reporting_period text NOT NULL DEFAULT 'monthly'
  CHECK (vat_reporting_period IN ('monthly', 'bimonthly'));
