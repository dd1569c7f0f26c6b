-- Expenses: the purchase side of the books (issue 6).
-- One row per purchase document received from a supplier (or per storno of such a row).
-- Amounts are integer agorot. A recorded row is immutable except for the one link to the row
-- that reverses it (null -> value, once); corrections are reversing rows (storno), never edits.
-- Reports (issue 7) read recorded rows: expenses by category = SUM(amount_ex_vat) GROUP BY
-- category_key; input VAT = SUM(deductible_vat); both over supplier_doc_date.

CREATE TABLE expenses (
  id text PRIMARY KEY,
  business_id text NOT NULL REFERENCES businesses(id),
  status text NOT NULL CHECK (status IN ('draft', 'recorded')),
  -- How the row was opened: manual (create draft), upload, scan (OCR), reversal (storno row), redraft.
  source text NOT NULL CHECK (source IN ('manual', 'upload', 'scan', 'reversal', 'redraft')),
  category_key text,
  supplier_name text,
  supplier_tax_id text,
  party_id text REFERENCES parties(id),
  -- tax_invoice (305), tax_invoice_receipt (320), credit_invoice (330), receipt (400), import_entry, other.
  supplier_doc_type text CHECK (supplier_doc_type IN ('tax_invoice', 'tax_invoice_receipt', 'credit_invoice', 'receipt', 'import_entry', 'other')),
  supplier_doc_number text,
  supplier_doc_date date,
  allocation_number text,
  amount_ex_vat bigint,
  vat_amount bigint,
  amount_inc_vat bigint,
  -- The part of vat_amount the dealer may deduct as input VAT (category rule, dealer type, doc type); set at recording.
  deductible_vat bigint,
  note text,
  receipt_file_id text REFERENCES files(id),
  -- The structured answer of the OCR model, kept as returned (only on rows opened by a scan).
  ocr_extraction jsonb,
  reverses_expense_id text UNIQUE REFERENCES expenses(id),
  reversed_by_expense_id text UNIQUE REFERENCES expenses(id),
  external_ref text,
  request_hash text,
  created_by_key_id text,
  recorded_at timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  CHECK (status = 'draft' OR (
    recorded_at IS NOT NULL AND supplier_name IS NOT NULL AND supplier_doc_date IS NOT NULL AND category_key IS NOT NULL
    AND amount_ex_vat IS NOT NULL AND vat_amount IS NOT NULL AND amount_inc_vat IS NOT NULL AND deductible_vat IS NOT NULL
    AND amount_ex_vat + vat_amount = amount_inc_vat
  )),
  CHECK (status = 'recorded' OR (recorded_at IS NULL AND reversed_by_expense_id IS NULL)),
  CHECK (reverses_expense_id IS NULL OR status = 'recorded')
);
CREATE UNIQUE INDEX expenses_external_ref ON expenses(business_id, external_ref) WHERE external_ref IS NOT NULL;
CREATE INDEX expenses_business_created ON expenses(business_id, created_at DESC, id DESC);
CREATE INDEX expenses_business_date ON expenses(business_id, status, supplier_doc_date);
CREATE INDEX expenses_receipt_file ON expenses(receipt_file_id) WHERE receipt_file_id IS NOT NULL;

-- A recorded row never changes, except reversed_by_expense_id going from null to a value once.
-- A recorded row is never deleted. Drafts are free.
CREATE FUNCTION expenses_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.status = 'recorded' THEN
      RAISE EXCEPTION 'expenses: a recorded expense cannot be deleted (%); correct it with a storno', OLD.id USING ERRCODE = 'P0001';
    END IF;
    RETURN OLD;
  END IF;
  IF OLD.status = 'recorded' THEN
    IF (to_jsonb(NEW) - 'reversed_by_expense_id') IS DISTINCT FROM (to_jsonb(OLD) - 'reversed_by_expense_id')
       OR OLD.reversed_by_expense_id IS NOT NULL
       OR NEW.reversed_by_expense_id IS NULL THEN
      RAISE EXCEPTION 'expenses: a recorded expense is immutable (%); only its reversal link may be set, once', OLD.id USING ERRCODE = 'P0001';
    END IF;
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER expenses_immutable BEFORE UPDATE OR DELETE ON expenses
  FOR EACH ROW EXECUTE FUNCTION expenses_guard();
CREATE TRIGGER expenses_no_truncate BEFORE TRUNCATE ON expenses
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- Stored file content never changes (it is addressed by its sha256), and a file that a recorded
-- expense points to cannot be deleted.
CREATE FUNCTION files_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.content IS DISTINCT FROM OLD.content OR NEW.sha256 IS DISTINCT FROM OLD.sha256
       OR NEW.size IS DISTINCT FROM OLD.size OR NEW.business_id IS DISTINCT FROM OLD.business_id
       OR NEW.mime IS DISTINCT FROM OLD.mime THEN
      RAISE EXCEPTION 'files: stored content is immutable (%)', OLD.id USING ERRCODE = 'P0001';
    END IF;
    RETURN NEW;
  END IF;
  IF EXISTS (SELECT 1 FROM expenses WHERE receipt_file_id = OLD.id AND status = 'recorded') THEN
    RAISE EXCEPTION 'files: % is the receipt of a recorded expense and cannot be deleted', OLD.id USING ERRCODE = 'P0001';
  END IF;
  RETURN OLD;
END $$;

CREATE TRIGGER files_immutable BEFORE UPDATE OR DELETE ON files
  FOR EACH ROW EXECUTE FUNCTION files_guard();
