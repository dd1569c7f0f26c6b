-- Free text (`q`) at a million documents (issue 17): the searched text stored in the row and in
-- the list's index.
--
-- A search tests `party->>'name' ILIKE '%q%' OR a line's description ILIKE '%q%'` row by row (the
-- newest rows first, src/documents/list.ts) and rechecks the trigram index's candidates the same way.
-- On the jsonb that is a read of the whole row, a walk of the lines and an ILIKE per text per row;
-- ILIKE alone lower-cases both sides on every call (what it does in a UTF-8 database:
-- lower(text) LIKE lower(pattern)). search_text holds the same texts once, lower-cased and joined:
-- the party's name, then each line's description, separated by a newline. A text without a newline
-- is a substring of one of them exactly when it is a substring of that string (a match cannot cross
-- a separator it does not hold; lower() maps character by character under the libc locales of both
-- engines), so `search_text LIKE lower('%q%')` is the same condition as the ILIKEs, on one short
-- string, with no case folding per row.
--
-- Adding a stored column rewrites the table: on books of a million documents this migration held
-- the table for ~260 s on the 2-core machine (server PostgreSQL 15, load 7-8), list and issue
-- waiting meanwhile.
CREATE FUNCTION documents_search_text(party jsonb, lines jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT lower(coalesce(party ->> 'name', '') || E'\n' ||
    coalesce((SELECT string_agg(l ->> 'description', E'\n')
                FROM jsonb_array_elements(CASE WHEN jsonb_typeof(lines) = 'array' THEN lines ELSE '[]'::jsonb END) AS l), ''))
$$;
-- The column keeps texts up to 1,000 bytes (nearly every document: the seeded books average 40) and
-- is null above, where the list falls back to the jsonb: a btree entry holds at most ~2,700 bytes,
-- and the column is in the list's index below.
CREATE FUNCTION documents_search_text_bounded(party jsonb, lines jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN octet_length(t) <= 1000 THEN t END FROM (SELECT public.documents_search_text(party, lines) AS t) AS s
$$;

-- The trigram index of 0011 was on text_trigrams of this very text (all of it, however long); it is
-- dropped before the column is added so that the table's rewrite does not build it twice, and built
-- again on the new function. Schema-qualified: PostgreSQL 17+ computes generated columns and builds
-- indexes with search_path = pg_catalog.
DROP INDEX documents_search;
DROP FUNCTION documents_search_trigrams(jsonb, jsonb);
-- A generated column: PostgreSQL computes it on every write (the API's draft insert and update,
-- issue, credit notes, the seeder's COPY, whose session skips triggers), so no write path can miss
-- it, and with the database's own lower(), the one ILIKE uses.
ALTER TABLE documents ADD COLUMN search_text text GENERATED ALWAYS AS (public.documents_search_text_bounded(party, lines)) STORED;
CREATE INDEX documents_search ON documents USING gin (public.text_trigrams(public.documents_search_text(party, lines)));
-- The list's index (0002's documents_list, same keys) carrying what a search tests: the newest rows'
-- texts are read from the index alone (an index-only scan, 2,000 entries in 53 pages) instead of
-- 2,000 rows of ~1.6 kB. doc_type and status for the filters a search is combined with most, and
-- doc_number for a search by number.
CREATE INDEX documents_list_search ON documents(business_id, created_at DESC, id DESC) INCLUDE (doc_type, status, doc_number, search_text);
DROP INDEX documents_list;

-- A date range combined with docType or status (0011's documents_list_date has neither): the range's
-- entries are filtered from the index alone, instead of reading each row of the range (a month of
-- 2,400 rows: 26 ms at a million documents, load 7) for its type or status.
CREATE INDEX documents_list_date_filtered ON documents(business_id, document_date, created_at, id) INCLUDE (doc_type, status);
DROP INDEX documents_list_date;
ALTER INDEX documents_list_date_filtered RENAME TO documents_list_date;

-- The freeze of issued documents (0002) compares whole rows minus the mutable columns. In a BEFORE
-- UPDATE trigger a generated column of NEW is not computed yet (it reads null), so search_text is
-- left out of the comparison: it is derived from party and lines, which stay compared.
CREATE OR REPLACE FUNCTION documents_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  mutable text[] := ARRAY['allocation_number', 'allocation', 'warnings', 'cancelled_by_document_id',
                          'pdf_files', 'origin_handed_out_at', 'print_count', 'updated_at',
                          -- generated from party and lines (above), not a column anyone writes
                          'search_text'];
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
