-- Dates in order and closed months closed to sales (issue 29, decisions.md "Books: dates, periods").

-- A draft created without a date takes the day it is issued (documents/issue.ts); the row keeps
-- the creation day until then, so every reader still finds a date.
ALTER TABLE documents ADD COLUMN dated_at_issue boolean NOT NULL DEFAULT false;

-- The next number of a series, refused (SQLSTATE PK003, nothing taken: the call rolls back) when the
-- series' latest issued document is dated after `day`: numbers and dates of a series run in the
-- same order. The detail names that document as JSON {docType, docNumber, documentDate}.
CREATE FUNCTION next_number(business text, series integer, day date) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  n bigint := next_number(business, series);
  latest record;
BEGIN
  SELECT doc_type, doc_number, document_date INTO latest FROM documents
   WHERE business_id = business AND doc_type = ANY (series_doc_types(series)) AND doc_number = n - 1 AND status = 'issued';
  IF FOUND AND latest.document_date > day THEN
    RAISE EXCEPTION 'the series'' latest document is dated after %', day USING ERRCODE = 'PK003',
      DETAIL = json_build_object('docType', latest.doc_type, 'docNumber', latest.doc_number, 'documentDate', latest.document_date)::text;
  END IF;
  RETURN n;
END $$;

-- issue_document (0026) takes the number with the date check and writes the issued dates (a draft
-- dated at issue changes them).
CREATE OR REPLACE FUNCTION issue_document(p jsonb) RETURNS TABLE(outcome text, doc_number bigint) LANGUAGE plpgsql AS $$
DECLARE
  bid text := p->>'businessId';
  d record;
  b record;
  n bigint;
  c bigint;
  sn jsonb := p->'snapshot';
BEGIN
  SELECT xmin::text AS version, status INTO d FROM documents WHERE id = p->>'id' AND business_id = bid FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'not_found'::text, NULL::bigint; RETURN; END IF;
  IF d.status = 'issued' THEN RETURN QUERY SELECT 'issued_before'::text, NULL::bigint; RETURN; END IF;
  IF d.version <> p->>'draftVersion' THEN RETURN QUERY SELECT 'draft_changed'::text, NULL::bigint; RETURN; END IF;
  SELECT xmin::text AS version INTO b FROM businesses WHERE id = bid;
  IF b.version IS DISTINCT FROM p->>'businessVersion' THEN RETURN QUERY SELECT 'business_changed'::text, NULL::bigint; RETURN; END IF;

  INSERT INTO usage_daily(day, subject, metric, count) VALUES ((p->>'day')::date, 'biz:' || bid, 'documents_opened', 1)
  ON CONFLICT (subject, metric, day) DO UPDATE SET count = usage_daily.count + 1 WHERE usage_daily.count < (p->>'perDay')::bigint
  RETURNING count INTO c;
  IF c IS NULL THEN RAISE EXCEPTION 'documents issued per business: the daily limit is reached' USING ERRCODE = 'PK001'; END IF;
  c := NULL;
  INSERT INTO document_month_counts(business_id, month, count) VALUES (bid, (p->>'month')::date, 1)
  ON CONFLICT (business_id, month) DO UPDATE SET count = document_month_counts.count + 1
    WHERE p->>'perMonth' IS NULL OR document_month_counts.count < (p->>'perMonth')::bigint
  RETURNING count INTO c;
  IF c IS NULL OR c > (p->>'perMonth')::bigint THEN
    RAISE EXCEPTION 'the business reached its monthly ceiling' USING ERRCODE = 'PK002';
  END IF;
  n := next_number(bid, (p->>'series')::integer, (sn->>'documentDate')::date);

  -- The issued columns are the frozen snapshot's (audit verify compares them).
  UPDATE documents SET status = 'issued', doc_number = n, party = sn->'party', lines = sn->'lines', payments = sn->'payments',
         document_date = (sn->>'documentDate')::date, value_date = (sn->>'valueDate')::date,
         vat_rate_bp = (sn->>'vatRateBp')::integer, discount_amount = (sn->'totals'->>'discountAmount')::bigint,
         exchange_rate = sn->>'exchangeRate', exchange_rate_date = (sn->>'exchangeRateDate')::date, exchange_rate_source = sn->>'exchangeRateSource',
         total_ex_vat = (sn->'totals'->>'totalExVat')::bigint, vat_amount = (sn->'totals'->>'vatAmount')::bigint,
         total_inc_vat = (sn->'totals'->>'totalIncVat')::bigint, allocation = p->'allocation', warnings = p->'warnings',
         snapshot = jsonb_set(sn, '{docNumber}', to_jsonb(n)), issued_at = (sn->>'issuedAt')::timestamptz, updated_at = (sn->>'issuedAt')::timestamptz
   WHERE id = p->>'id';
  PERFORM document_issued_writes(p->'writes', n);
  RETURN QUERY SELECT 'issued'::text, n;
END $$;

-- Periods (0016): a closed month may be reopened — only the last one closed, with a reason — and
-- closed again later. A row is a close; its reopening is written on it once. The month is closed
-- while a row of it is not reopened.
ALTER TABLE ledger_periods ADD COLUMN reopened_at timestamptz(3), ADD COLUMN reopened_by_key_id text, ADD COLUMN reopen_reason text,
  ADD CONSTRAINT ledger_periods_reopen_reason CHECK ((reopened_at IS NULL) = (reopen_reason IS NULL) AND length(btrim(coalesce(reopen_reason, 'x'))) > 0);
ALTER TABLE ledger_periods DROP CONSTRAINT ledger_periods_pkey, ADD PRIMARY KEY (business_id, period, closed_at);
CREATE UNIQUE INDEX ledger_periods_closed ON ledger_periods(business_id, period) WHERE reopened_at IS NULL;

-- A close takes the business's entry counter (ledger/periods.ts), at 0 when the business has no
-- entry yet.
ALTER TABLE ledger_counters DROP CONSTRAINT ledger_counters_last_entry_no_check, ADD CONSTRAINT ledger_counters_last_entry_no_check CHECK (last_entry_no >= 0);

-- Months close in date order: the next month after the last closed one (any month when none is
-- closed). Closers of one business queue on a transaction lock.
CREATE FUNCTION ledger_periods_close_in_order() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last_closed date;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('ledger_periods:' || NEW.business_id, 0));
  IF NEW.reopened_at IS NOT NULL THEN
    RAISE EXCEPTION 'ledger_periods: a period is closed before it is reopened' USING ERRCODE = 'P0001';
  END IF;
  SELECT max(period) INTO last_closed FROM ledger_periods WHERE business_id = NEW.business_id AND reopened_at IS NULL;
  IF last_closed IS NOT NULL AND NEW.period <> (last_closed + interval '1 month')::date THEN
    RAISE EXCEPTION 'ledger_periods: periods close in date order: the next one to close is %', to_char(last_closed + interval '1 month', 'YYYY-MM')
      USING ERRCODE = 'PK005';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_periods_in_order BEFORE INSERT ON ledger_periods
  FOR EACH ROW EXECUTE FUNCTION ledger_periods_close_in_order();

-- A row changes once, to reopen the last closed month; nothing else of it changes, nothing is deleted.
CREATE FUNCTION ledger_periods_reopen_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'ledger_periods is append-only: DELETE refused' USING ERRCODE = 'P0001';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('ledger_periods:' || OLD.business_id, 0));
  IF OLD.reopened_at IS NOT NULL OR NEW.reopened_at IS NULL
     OR (NEW.business_id, NEW.period, NEW.closed_at, NEW.closed_by_key_id) IS DISTINCT FROM (OLD.business_id, OLD.period, OLD.closed_at, OLD.closed_by_key_id) THEN
    RAISE EXCEPTION 'ledger_periods: a close changes only by its one reopening' USING ERRCODE = 'P0001';
  END IF;
  IF EXISTS (SELECT 1 FROM ledger_periods WHERE business_id = OLD.business_id AND period > OLD.period AND reopened_at IS NULL) THEN
    RAISE EXCEPTION 'ledger_periods: only the last closed period may be reopened' USING ERRCODE = 'PK006';
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER ledger_periods_immutable ON ledger_periods;
CREATE TRIGGER ledger_periods_immutable BEFORE UPDATE OR DELETE ON ledger_periods
  FOR EACH ROW EXECUTE FUNCTION ledger_periods_reopen_only();

CREATE OR REPLACE FUNCTION ledger_open_day(p_business text, p_day date) RETURNS date LANGUAGE plpgsql STABLE AS $$
DECLARE
  d date := p_day;
BEGIN
  WHILE EXISTS (SELECT 1 FROM ledger_periods WHERE business_id = p_business AND period = date_trunc('month', d)::date AND reopened_at IS NULL) LOOP
    d := (date_trunc('month', d) + interval '1 month')::date;
  END LOOP;
  RETURN d;
END $$;

-- Journal entries (0028): a document's entry in a closed month is refused (PK004) — issue refuses
-- the document — while an expense's still moves to the first open day. Checked here, after the
-- entry counter's lock, which a close takes too, so a close and an issue never pass each other.
CREATE OR REPLACE FUNCTION journal_entries_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  open_day date;
BEGIN
  NEW.written_xact := pg_current_xact_id();
  IF EXISTS (SELECT 1 FROM ledger_periods WHERE business_id = NEW.business_id AND period = date_trunc('month', NEW.entry_date)::date AND reopened_at IS NULL) THEN
    IF NEW.source IN ('manual', 'reversal') THEN
      RAISE EXCEPTION 'journal_entries: % is in a closed period of the books', NEW.entry_date USING ERRCODE = 'P0001';
    END IF;
    IF NEW.source = 'document' THEN
      RAISE EXCEPTION 'journal_entries: % is in a closed period of the books', NEW.entry_date USING ERRCODE = 'PK004';
    END IF;
    NEW.entry_date := ledger_open_day(NEW.business_id, NEW.entry_date);
  END IF;
  RETURN NEW;
END $$;
