-- Listing documents at a million (issue 17): every filter of GET …/documents served by an index, so
-- a page of `take=50` costs the same in small and in large books. Checked with EXPLAIN ANALYZE on
-- 1,000,000 seeded documents (bench/large-books.bench.ts). Indexes only; no data changes.
--
-- The list is ordered by (created_at DESC, id DESC) and filtered by business and at most a few of:
-- status, doc_type, party_id, document_date range, external_ref prefix, free text. An index that
-- leads with the business and the filter's column and ends with the order answers a page by reading
-- 50 entries: no sort, no scan of the rest of the books.
CREATE INDEX documents_list_status ON documents(business_id, status, created_at DESC, id DESC);
CREATE INDEX documents_list_doc_type ON documents(business_id, doc_type, created_at DESC, id DESC);
CREATE INDEX documents_list_party ON documents(business_id, party_id, created_at DESC, id DESC) WHERE party_id IS NOT NULL;
-- Supersedes documents_by_party (0002): same leading columns.
DROP INDEX documents_by_party;
-- A date range is a range of the index; the page is the range's newest 50, sorted from the index
-- entries alone (created_at and id are in it) before any row is read.
CREATE INDEX documents_list_date ON documents(business_id, document_date, created_at, id);
-- Supersedes documents_by_date (0002): same leading columns.
DROP INDEX documents_by_date;
-- externalRefPrefix is `external_ref LIKE 'prefix%'`: a btree serves a prefix only under the C
-- collation or with text_pattern_ops (the server's databases may use another collation).
CREATE INDEX documents_list_external_ref ON documents(business_id, external_ref text_pattern_ops) WHERE external_ref IS NOT NULL;

-- Free text (`q`): a substring of the party's name or of a line's description, case-insensitive
-- (ILIKE). pg_trgm would be the usual index, but it only extracts trigrams from characters the
-- database's locale calls letters, and the embedded cluster is initialised without a locale (C),
-- where Hebrew letters are not: Hebrew text would give no trigram and the index nothing. So the
-- trigrams are made here, in plain SQL, and indexed with the built-in GIN array operators: the
-- distinct 3-character substrings of lower(name || '\n' || descriptions). Every substring of the
-- searched text (lower-cased, as ILIKE compares) of 3 characters or more has all its trigrams in
-- that set, so `trigrams @> trigrams(lower(q))` keeps every match; the list keeps the exact ILIKE
-- conditions beside it to drop the rest. (A text under 3 characters has no trigram: it is searched
-- without the index.)
CREATE FUNCTION text_trigrams(t text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT substr(t, i, 3)), '{}') FROM generate_series(1, char_length(t) - 2) AS i
$$;
-- Schema-qualified: PostgreSQL 17+ builds and maintains an index with search_path = pg_catalog.
CREATE FUNCTION documents_search_trigrams(party jsonb, lines jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT public.text_trigrams(lower(
    coalesce(party ->> 'name', '') || E'\n' ||
    coalesce((SELECT string_agg(l ->> 'description', E'\n')
                FROM jsonb_array_elements(CASE WHEN jsonb_typeof(lines) = 'array' THEN lines ELSE '[]'::jsonb END) AS l), '')))
$$;
CREATE INDEX documents_search ON documents USING gin (documents_search_trigrams(party, lines));
