-- Issue 28: what PostgreSQL does for each document written, lighter.

-- text_trigrams (0028) ran one query per call, array_agg(DISTINCT substr(t, i, 3)) over generate_series:
-- the planner's estimate of generate_series with the text's length made every custom plan cheaper than
-- the generic one, so the query was planned again at every call (0.03 ms of planning beside 0.04 ms of
-- execution, twice a document: the trigram index's expression on the draft's insert and on the issue's
-- update), and substr walks the text from its start at every position (UTF-8), so a long text cost the
-- square of its length (11,000 Hebrew characters: 1.2 s). The loop below splits the text into its
-- characters once and has no query; it returns the same trigrams in text order, with repeats: the
-- index's keys and `@>` are the same sets (GIN sorts and removes repeated keys of an item and of a
-- query), so the index built by the old function stays valid and is not rebuilt.
CREATE OR REPLACE FUNCTION text_trigrams(t text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  c text[] := string_to_array(t, NULL);
  grams text[] := '{}';
BEGIN
  FOR i IN 1 .. cardinality(c) - 2 LOOP
    grams := array_append(grams, c[i] || c[i + 1] || c[i + 2]);
  END LOOP;
  RETURN grams;
END $$;

-- documents_search_text (0028) read the lines with a query (string_agg over jsonb_array_elements):
-- ~0.03 ms a call, four calls a document (the stored column and the trigram index's expression, on
-- the draft's insert and again on the issue's update). A loop over the array by position gives the
-- same text with no query, in a third of the time: the descriptions in order, joined by newlines,
-- a line without one left out (array_to_string leaves out nulls as string_agg does). Same text, so
-- search_text and the trigram index stay as stored.
CREATE OR REPLACE FUNCTION documents_search_text(party jsonb, lines jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  descriptions text[] := '{}';
BEGIN
  IF jsonb_typeof(lines) = 'array' THEN
    FOR i IN 0 .. jsonb_array_length(lines) - 1 LOOP
      descriptions := array_append(descriptions, lines -> i ->> 'description');
    END LOOP;
  END IF;
  RETURN lower(coalesce(party ->> 'name', '') || E'\n' || array_to_string(descriptions, E'\n'));
END $$;

-- next_number(business, series) (0026) was a SQL function: PostgreSQL 15 parses and plans a SQL function's
-- statement again at every call (as join_parts, 0032), 0.02-0.06 ms of planning an issue beside 0.03 ms of
-- execution. The same statement in plpgsql, whose plan is kept.
CREATE OR REPLACE FUNCTION next_number(business text, series integer) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  INSERT INTO document_counters(business_id, doc_type, start_number, last_number) VALUES (business, series, 1, 1)
  ON CONFLICT (business_id, doc_type)
  DO UPDATE SET last_number = coalesce(document_counters.last_number, document_counters.start_number - 1) + 1
  RETURNING last_number INTO n;
  RETURN n;
END $$;

-- The series' probes of documents_number: the date check of next_number (0033) and the counters' deferred
-- guard (0028) looked for the previous or the new number with `doc_type = ANY (series_doc_types(series))`.
-- In a plan kept by plpgsql the types are not known, and where the planner expects a business to be
-- small (many businesses in the database) it read documents_export_order by the business alone, every
-- issued document of it: 5,817 pages and 102 ms for one issue of a business of 520,000 documents
-- (EXPLAIN of the kept plan with business_id's n_distinct at 1,000), against 4 pages by documents_number.
-- One probe per type of the series (a series has one type today) gives the planner the whole key.
CREATE OR REPLACE FUNCTION next_number(business text, series integer, day date) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  n bigint := next_number(business, series);
  t integer;
  latest record;
BEGIN
  FOREACH t IN ARRAY series_doc_types(series) LOOP
    SELECT doc_type, doc_number, document_date INTO latest FROM documents
     WHERE business_id = business AND doc_type = t AND doc_number = n - 1 AND status = 'issued';
    IF FOUND AND latest.document_date > day THEN
      RAISE EXCEPTION 'the series'' latest document is dated after %', day USING ERRCODE = 'PK003',
        DETAIL = json_build_object('docType', latest.doc_type, 'docNumber', latest.doc_number, 'documentDate', latest.document_date)::text;
    END IF;
  END LOOP;
  RETURN n;
END $$;

CREATE OR REPLACE FUNCTION document_counters_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was bigint;
  t integer;
  held boolean := false;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF OLD.last_number IS NOT NULL AND (NEW.last_number IS NULL OR NEW.last_number < OLD.last_number) THEN
      RAISE EXCEPTION 'document_counters: last_number only moves forward' USING ERRCODE = 'P0001';
    END IF;
    IF OLD.last_number IS NOT NULL AND NEW.start_number IS DISTINCT FROM OLD.start_number THEN
      RAISE EXCEPTION 'document_counters: start_number is fixed after the first issue' USING ERRCODE = 'P0001';
    END IF;
    IF NEW.last_number IS NOT DISTINCT FROM OLD.last_number THEN
      RETURN NULL;
    END IF;
    was := coalesce(OLD.last_number, NEW.start_number - 1);
  ELSE
    IF NEW.last_number IS NULL THEN
      RETURN NULL;
    END IF;
    was := NEW.start_number - 1;
  END IF;
  IF NEW.last_number <> was + 1 THEN
    RAISE EXCEPTION 'document_counters: last_number moves one step at a time (% to %)', was, NEW.last_number USING ERRCODE = 'P0001';
  END IF;
  FOREACH t IN ARRAY series_doc_types(NEW.doc_type) LOOP
    held := held OR EXISTS (SELECT 1 FROM documents WHERE business_id = NEW.business_id AND doc_type = t
                                AND doc_number = NEW.last_number AND status = 'issued');
  END LOOP;
  IF NOT held THEN
    RAISE EXCEPTION 'document_counters: number % of series % was taken without the document that holds it', NEW.last_number, NEW.doc_type
      USING ERRCODE = 'P0001';
  END IF;
  RETURN NULL;
END $$;

-- documents_issued_at (0002) serves no statement: exports and their totals select by document_date with
-- status = 'issued' (documents_export_order) and only filter by issued_at; the list has no issued-at
-- filter. Every issue wrote an entry into it.
DROP INDEX documents_issued_at;

-- documents_list_status (0011) held every document under its status: the issue moved each row from
-- the drafts' range to the issued range, an entry written on the draft's insert and another on the
-- issue. A `take=50` list of issued documents does not need it: most documents are issued, and the
-- newest-first read of documents_list_search (which carries status, 0024) stops after about 50
-- entries; a list of drafts, a few among many issued documents, does, and reads this index of the
-- drafts alone. The issue's update writes no entry into it (an index takes the rows its predicate
-- holds for). The counts (`counts=1`) read status from documents_list_date (it carries status), not
-- from here. Measured on 520,000 seeded documents: docs/benchmarks.md, issue 28.
CREATE INDEX documents_list_drafts ON documents(business_id, created_at DESC, id DESC) WHERE status = 'draft';
DROP INDEX documents_list_status;
