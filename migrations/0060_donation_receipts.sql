-- Issue 30, step 3: 405 donation receipts of an ngo (documents/doc-types.ts). The type is numbered in
-- its own series, so the documents' and the counters' CHECK widen and series_doc_types (0028, 0050)
-- learns it. NOT VALID, then VALIDATE: the check of the existing rows runs without blocking writes.
ALTER TABLE documents DROP CONSTRAINT documents_doc_type_check;
ALTER TABLE documents ADD CONSTRAINT documents_doc_type_check CHECK (doc_type IN (10, 100, 200, 210, 300, 305, 320, 330, 400, 405)) NOT VALID;
ALTER TABLE documents VALIDATE CONSTRAINT documents_doc_type_check;
ALTER TABLE document_counters DROP CONSTRAINT document_counters_doc_type_check;
ALTER TABLE document_counters ADD CONSTRAINT document_counters_doc_type_check CHECK (doc_type IN (10, 100, 200, 210, 300, 305, 320, 330, 400, 405)) NOT VALID;
ALTER TABLE document_counters VALIDATE CONSTRAINT document_counters_doc_type_check;

CREATE OR REPLACE FUNCTION series_doc_types(series integer) RETURNS integer[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN series IN (10, 100, 200, 210, 300, 305, 320, 330, 400, 405) THEN ARRAY[series] ELSE ARRAY[]::integer[] END
$$;

-- The organisation's section 46 approval (Income Tax Ordinance §46: its donors get a tax credit): its
-- number and the days it is valid, all three or none. A 405 is issued only on a day inside them.
ALTER TABLE businesses
  ADD COLUMN section46_approval_number text,
  ADD COLUMN section46_valid_from date,
  ADD COLUMN section46_valid_to date,
  ADD CONSTRAINT businesses_section46_whole CHECK (
    (section46_approval_number IS NULL AND section46_valid_from IS NULL AND section46_valid_to IS NULL)
    OR (section46_approval_number IS NOT NULL AND section46_valid_from IS NOT NULL AND section46_valid_to IS NOT NULL
        AND section46_valid_from <= section46_valid_to)
  );
