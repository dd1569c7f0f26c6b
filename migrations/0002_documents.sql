-- Documents: drafts and issued tax documents (305, 320, 330, 400).
-- Lines and payments are jsonb columns of the document row, so one trigger protects the whole
-- frozen content of an issued document. Numbers come from document_counters (0001), locked in the
-- issuing transaction; the unique index below is the last line of defence against a duplicate.

CREATE TABLE documents (
  id text PRIMARY KEY,
  business_id text NOT NULL REFERENCES businesses(id),
  status text NOT NULL CHECK (status IN ('draft', 'issued')),
  doc_type integer NOT NULL CHECK (doc_type IN (305, 320, 330, 400)),
  doc_number bigint CHECK (doc_number >= 1),
  -- The saved party the document is filed against (null for inline or anonymous parties).
  party_id text REFERENCES parties(id),
  -- The party as shown: {partyId, key, name, taxId, phone, email, address} or null (anonymous).
  party jsonb,
  price_mode text NOT NULL DEFAULT 'net' CHECK (price_mode IN ('net', 'gross')),
  lines jsonb NOT NULL DEFAULT '[]'::jsonb,
  payments jsonb NOT NULL DEFAULT '[]'::jsonb,
  note text,
  document_date date NOT NULL,
  value_date date NOT NULL,
  -- Null on a draft means "by date or business default", resolved (and frozen) at issue.
  vat_rate_bp integer CHECK (vat_rate_bp BETWEEN 0 AND 10000),
  vat_exemption_reason text CHECK (vat_exemption_reason IN ('eilat', 'export', 'exempt')),
  discount_amount bigint NOT NULL DEFAULT 0,
  withholding_amount bigint NOT NULL DEFAULT 0,
  total_ex_vat bigint NOT NULL DEFAULT 0,
  vat_amount bigint NOT NULL DEFAULT 0,
  total_inc_vat bigint NOT NULL DEFAULT 0,
  linked_document_id text REFERENCES documents(id),
  external_ref text,
  -- sha256 of the canonical create body, to tell an idempotent retry from a reused key.
  request_hash text,
  -- Set after issue by other areas, in the ways the immutability trigger allows (see below).
  allocation_number text,
  allocation jsonb,
  warnings jsonb NOT NULL DEFAULT '[]'::jsonb,
  cancelled_by_document_id text REFERENCES documents(id),
  pdf_files jsonb,
  origin_handed_out_at timestamptz(3),
  print_count integer NOT NULL DEFAULT 0 CHECK (print_count >= 0),
  -- The full frozen snapshot (src/documents/snapshot.ts DocumentSnapshot).
  snapshot jsonb,
  issued_at timestamptz(3),
  created_by_key_id text,
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  CONSTRAINT documents_issued_complete CHECK (
    (status = 'draft' AND doc_number IS NULL AND issued_at IS NULL AND snapshot IS NULL)
    OR (status = 'issued' AND doc_number IS NOT NULL AND issued_at IS NOT NULL AND snapshot IS NOT NULL)
  )
);

CREATE UNIQUE INDEX documents_number ON documents(business_id, doc_type, doc_number) WHERE doc_number IS NOT NULL;
CREATE UNIQUE INDEX documents_external_ref ON documents(business_id, external_ref) WHERE external_ref IS NOT NULL;
CREATE UNIQUE INDEX documents_one_credit ON documents(linked_document_id) WHERE linked_document_id IS NOT NULL;
CREATE INDEX documents_list ON documents(business_id, created_at DESC, id DESC);
CREATE INDEX documents_by_date ON documents(business_id, document_date);
CREATE INDEX documents_by_party ON documents(business_id, party_id);
CREATE INDEX documents_issued_at ON documents(business_id, issued_at) WHERE issued_at IS NOT NULL;

-- An issued document is frozen. The only changes allowed after issue:
--   allocation_number         null -> value, once
--   allocation, warnings      freely (the allocation lifecycle)
--   cancelled_by_document_id  null -> value, once
--   pdf_files                 null -> value, once
--   origin_handed_out_at      null -> value, once
--   print_count               only upwards
--   updated_at                bookkeeping of the row itself
-- Everything else (compared as the whole row minus these columns, so a column added later is
-- frozen by default) must stay identical. Issued rows are never deleted.
CREATE FUNCTION documents_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  mutable text[] := ARRAY['allocation_number', 'allocation', 'warnings', 'cancelled_by_document_id',
                          'pdf_files', 'origin_handed_out_at', 'print_count', 'updated_at'];
BEGIN
  IF OLD.status <> 'issued' THEN
    RETURN NEW;
  END IF;
  IF (to_jsonb(NEW) - mutable) IS DISTINCT FROM (to_jsonb(OLD) - mutable) THEN
    RAISE EXCEPTION 'document % is issued: its content is frozen', OLD.id USING ERRCODE = 'P0001';
  END IF;
  IF OLD.allocation_number IS NOT NULL AND NEW.allocation_number IS DISTINCT FROM OLD.allocation_number THEN
    RAISE EXCEPTION 'document %: allocation_number is set once and never changed', OLD.id USING ERRCODE = 'P0001';
  END IF;
  IF OLD.cancelled_by_document_id IS NOT NULL AND NEW.cancelled_by_document_id IS DISTINCT FROM OLD.cancelled_by_document_id THEN
    RAISE EXCEPTION 'document %: cancelled_by_document_id is set once', OLD.id USING ERRCODE = 'P0001';
  END IF;
  IF OLD.pdf_files IS NOT NULL AND NEW.pdf_files IS DISTINCT FROM OLD.pdf_files THEN
    RAISE EXCEPTION 'document %: pdf_files are set once', OLD.id USING ERRCODE = 'P0001';
  END IF;
  IF OLD.origin_handed_out_at IS NOT NULL AND NEW.origin_handed_out_at IS DISTINCT FROM OLD.origin_handed_out_at THEN
    RAISE EXCEPTION 'document %: the origin is handed out once', OLD.id USING ERRCODE = 'P0001';
  END IF;
  IF NEW.print_count < OLD.print_count THEN
    RAISE EXCEPTION 'document %: print_count only increases', OLD.id USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;

CREATE FUNCTION documents_guard_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'issued' THEN
    RAISE EXCEPTION 'document % is issued: it is never deleted', OLD.id USING ERRCODE = 'P0001';
  END IF;
  RETURN OLD;
END $$;

CREATE TRIGGER documents_frozen_after_issue BEFORE UPDATE ON documents
  FOR EACH ROW EXECUTE FUNCTION documents_guard_update();
CREATE TRIGGER documents_never_delete_issued BEFORE DELETE ON documents
  FOR EACH ROW EXECUTE FUNCTION documents_guard_delete();
CREATE TRIGGER documents_no_truncate BEFORE TRUNCATE ON documents
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- A counter only moves forward: an issued number is never handed out again.
CREATE FUNCTION document_counters_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.last_number IS NOT NULL AND (NEW.last_number IS NULL OR NEW.last_number < OLD.last_number) THEN
    RAISE EXCEPTION 'document_counters: last_number only moves forward' USING ERRCODE = 'P0001';
  END IF;
  IF OLD.last_number IS NOT NULL AND NEW.start_number IS DISTINCT FROM OLD.start_number THEN
    RAISE EXCEPTION 'document_counters: start_number is fixed after the first issue' USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER document_counters_forward BEFORE UPDATE ON document_counters
  FOR EACH ROW EXECUTE FUNCTION document_counters_forward_only();
CREATE TRIGGER document_counters_no_delete BEFORE DELETE ON document_counters
  FOR EACH ROW WHEN (OLD.last_number IS NOT NULL) EXECUTE FUNCTION refuse_change();
