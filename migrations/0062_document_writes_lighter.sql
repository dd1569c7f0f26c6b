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
