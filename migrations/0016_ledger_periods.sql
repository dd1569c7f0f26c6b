-- Closing periods of the books (issue 20). A closed month takes no new manual entry dated inside it;
-- a document or an expense still follows its own rules, so its entry is dated the first day after the
-- closed months that hold its date (its reference still names the document). A close is never undone.
CREATE TABLE ledger_periods (
  business_id text NOT NULL REFERENCES businesses(id),
  -- The first day of the closed month.
  period date NOT NULL CHECK (extract(day FROM period) = 1),
  closed_at timestamptz(3) NOT NULL,
  closed_by_key_id text,
  PRIMARY KEY (business_id, period)
);
CREATE TRIGGER ledger_periods_immutable BEFORE UPDATE OR DELETE ON ledger_periods
  FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER ledger_periods_no_truncate BEFORE TRUNCATE ON ledger_periods
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- The first day on or after p_day that is not in a closed month of the business.
CREATE FUNCTION ledger_open_day(p_business text, p_day date) RETURNS date LANGUAGE plpgsql STABLE AS $$
DECLARE
  d date := p_day;
BEGIN
  WHILE EXISTS (SELECT 1 FROM ledger_periods WHERE business_id = p_business AND period = date_trunc('month', d)::date) LOOP
    d := (date_trunc('month', d) + interval '1 month')::date;
  END LOOP;
  RETURN d;
END $$;

CREATE FUNCTION journal_entries_open_period() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  open_day date := ledger_open_day(NEW.business_id, NEW.entry_date);
BEGIN
  IF open_day <> NEW.entry_date THEN
    IF NEW.source IN ('manual', 'reversal') THEN
      RAISE EXCEPTION 'journal_entries: % is in a closed period of the books', NEW.entry_date USING ERRCODE = 'P0001';
    END IF;
    NEW.entry_date := open_day;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER journal_entries_open_period BEFORE INSERT ON journal_entries
  FOR EACH ROW EXECUTE FUNCTION journal_entries_open_period();
