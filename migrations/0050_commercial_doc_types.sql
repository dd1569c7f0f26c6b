-- Issue 30: the commercial papers beside the tax documents (documents/doc-types.ts): 10 price quote,
-- 100 order, 200 delivery note, 210 return note, 300 transaction invoice. Each is numbered in its own
-- series, so the documents' and the counters' CHECK widen and series_doc_types (0028) learns the new
-- series. test/documents/issue-call.test.ts compares both with the table. NOT VALID, then VALIDATE:
-- the check of the existing rows runs without blocking writes.
ALTER TABLE documents DROP CONSTRAINT documents_doc_type_check;
ALTER TABLE documents ADD CONSTRAINT documents_doc_type_check CHECK (doc_type IN (10, 100, 200, 210, 300, 305, 320, 330, 400)) NOT VALID;
ALTER TABLE documents VALIDATE CONSTRAINT documents_doc_type_check;
ALTER TABLE document_counters DROP CONSTRAINT document_counters_doc_type_check;
ALTER TABLE document_counters ADD CONSTRAINT document_counters_doc_type_check CHECK (doc_type IN (10, 100, 200, 210, 300, 305, 320, 330, 400)) NOT VALID;
ALTER TABLE document_counters VALIDATE CONSTRAINT document_counters_doc_type_check;

CREATE OR REPLACE FUNCTION series_doc_types(series integer) RETURNS integer[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN series IN (10, 100, 200, 210, 300, 305, 320, 330, 400) THEN ARRAY[series] ELSE ARRAY[]::integer[] END
$$;
