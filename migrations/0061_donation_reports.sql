-- Issue 30, step 3: the report of each issued 405 donation receipt (and of each cancellation, for the
-- credit of one) to the Tax Authority's digital donation system (src/donations, docs/donations.md). One
-- row per reported document, written by the `document.donation_report` job after issue; no row yet means
-- the report is pending. The report number is stored once: a reported or refused row never changes, a
-- failed one only goes back to pending when asked again, and no row is ever deleted. Beside `documents`,
-- whose shape stays as it was.
CREATE TABLE donation_reports (
  document_id text PRIMARY KEY REFERENCES documents(id),
  business_id text NOT NULL REFERENCES businesses(id),
  kind text NOT NULL CHECK (kind IN ('donation', 'cancellation')),
  status text NOT NULL CHECK (status IN ('pending', 'reported', 'refused', 'failed')),
  report_number text,
  cancels_report_number text,
  error text,
  requested_at timestamptz(3) NOT NULL,
  decided_at timestamptz(3),
  updated_at timestamptz(3) NOT NULL,
  CHECK ((status = 'reported') = (report_number IS NOT NULL)),
  CHECK ((status = 'pending') = (decided_at IS NULL)),
  CHECK (kind = 'cancellation' OR cancels_report_number IS NULL)
);
CREATE INDEX donation_reports_business ON donation_reports(business_id);

-- Only a pending report moves (to another pending state or to its answer); a report number or a refusal
-- is final; a failed report may only be asked again (back to pending, POST …/donation-report).
CREATE FUNCTION donation_reports_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'donation report of %: reports are never deleted', OLD.document_id USING ERRCODE = 'P0001';
  END IF;
  IF OLD.status IN ('reported', 'refused') OR (OLD.status = 'failed' AND NEW.status <> 'pending') THEN
    RAISE EXCEPTION 'donation report of %: its answer (%) is final', OLD.document_id, OLD.status USING ERRCODE = 'P0001';
  END IF;
  IF NEW.document_id <> OLD.document_id OR NEW.business_id <> OLD.business_id OR NEW.kind <> OLD.kind THEN
    RAISE EXCEPTION 'donation report of %: its document and kind never change', OLD.document_id USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER donation_reports_guard BEFORE UPDATE OR DELETE ON donation_reports
  FOR EACH ROW EXECUTE FUNCTION donation_reports_guard();
CREATE TRIGGER donation_reports_no_truncate BEFORE TRUNCATE ON donation_reports
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
