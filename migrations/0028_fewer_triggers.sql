-- The same guarantees from fewer trigger executions (issue 28), and counters that move only with the
-- document that takes the number. Trigger names stay (platform/audit.ts PROTECTING_TRIGGERS lists them).

-- Documents: one BEFORE UPDATE trigger instead of two. A draft's stale allocation number (0008) is
-- dropped here; an issued row stays frozen (0024).
CREATE OR REPLACE FUNCTION documents_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  mutable text[] := ARRAY['allocation_number', 'allocation', 'warnings', 'cancelled_by_document_id',
                          'pdf_files', 'origin_handed_out_at', 'print_count', 'updated_at',
                          -- generated from party and lines, not a column anyone writes
                          'search_text'];
BEGIN
  IF OLD.status <> 'issued' THEN
    -- A draft's allocation number asked for its figures is valid only for them: an edit of what the
    -- authority saw drops it (a number set in the same edit, or one the caller gave itself, stays).
    IF OLD.status = 'draft' AND NEW.status = 'draft'
       AND OLD.allocation_number IS NOT NULL
       AND NEW.allocation_number IS NOT DISTINCT FROM OLD.allocation_number
       AND OLD.allocation IS NOT NULL AND OLD.allocation ? 'figures'
       AND NEW.allocation IS NOT DISTINCT FROM OLD.allocation
       AND (NEW.doc_type, NEW.party, NEW.lines, NEW.price_mode, NEW.note, NEW.document_date, NEW.vat_rate_bp, NEW.discount_amount)
           IS DISTINCT FROM (OLD.doc_type, OLD.party, OLD.lines, OLD.price_mode, OLD.note, OLD.document_date, OLD.vat_rate_bp, OLD.discount_amount)
    THEN
      NEW.allocation_number := NULL;
      NEW.allocation := OLD.allocation || jsonb_build_object(
        'status', 'failed', 'number', NULL,
        'error', 'the draft changed after its allocation number was granted: request it again (POST …/allocation)');
    END IF;
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
DROP TRIGGER documents_draft_allocation_stale ON documents;
DROP FUNCTION documents_draft_allocation_stale();

-- Journal entries: the stamp of the writing transaction and the move out of a closed period in one
-- BEFORE INSERT trigger (0015, 0016); the periods are looked at only when the month is closed.
CREATE OR REPLACE FUNCTION journal_entries_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  open_day date;
BEGIN
  NEW.written_xact := pg_current_xact_id();
  IF EXISTS (SELECT 1 FROM ledger_periods WHERE business_id = NEW.business_id AND period = date_trunc('month', NEW.entry_date)::date) THEN
    open_day := ledger_open_day(NEW.business_id, NEW.entry_date);
    IF NEW.source IN ('manual', 'reversal') THEN
      RAISE EXCEPTION 'journal_entries: % is in a closed period of the books', NEW.entry_date USING ERRCODE = 'P0001';
    END IF;
    NEW.entry_date := open_day;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER journal_entries_open_period ON journal_entries;
DROP FUNCTION journal_entries_open_period();

-- The search text (0024, 0011) in plpgsql: a SQL function that cannot be inlined is planned again at
-- every call (~0.4 ms each, measured with pg_stat_statements; the generated column and the trigram
-- index call them on a draft's insert and again on its issue), while plpgsql keeps its plans for the
-- session. The results are the same, so nothing is recomputed or rebuilt. Other functions are named
-- with their schema: PostgreSQL 17+ maintains an index with search_path = pg_catalog.
CREATE OR REPLACE FUNCTION documents_search_text(party jsonb, lines jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  descriptions text;
BEGIN
  SELECT string_agg(l ->> 'description', E'\n') INTO descriptions
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(lines) = 'array' THEN lines ELSE '[]'::jsonb END) AS l;
  RETURN lower(coalesce(party ->> 'name', '') || E'\n' || coalesce(descriptions, ''));
END $$;
CREATE OR REPLACE FUNCTION documents_search_text_bounded(party jsonb, lines jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  t text := public.documents_search_text(party, lines);
BEGIN
  RETURN CASE WHEN octet_length(t) <= 1000 THEN t END;
END $$;
CREATE OR REPLACE FUNCTION text_trigrams(t text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  grams text[];
BEGIN
  SELECT coalesce(array_agg(DISTINCT substr(t, i, 3)), '{}') INTO grams FROM generate_series(1, char_length(t) - 2) AS i;
  RETURN grams;
END $$;

-- The document types numbered in a series (documents/doc-types.ts `series`; test/unit/doc-types.test.ts
-- compares them).
CREATE FUNCTION series_doc_types(series integer) RETURNS integer[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE series WHEN 305 THEN ARRAY[305] WHEN 320 THEN ARRAY[320] WHEN 330 THEN ARRAY[330] WHEN 400 THEN ARRAY[400] ELSE ARRAY[]::integer[] END
$$;

-- Counters (0002): checked at commit, so a number moves only with the document that takes it. A
-- counter moves forward one step at a time, its start is fixed once it moved, and at commit an issued
-- document of the series holds the number it moved to; raw SQL that jumps a counter (a gap only the
-- continuity report would find) is refused. A bulk load that writes numbered documents (a restore)
-- runs with session_replication_role = replica, as before.
CREATE OR REPLACE FUNCTION document_counters_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was bigint;
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
  IF NOT EXISTS (SELECT 1 FROM documents WHERE business_id = NEW.business_id AND doc_type = ANY (series_doc_types(NEW.doc_type))
                    AND doc_number = NEW.last_number AND status = 'issued') THEN
    RAISE EXCEPTION 'document_counters: number % of series % was taken without the document that holds it', NEW.last_number, NEW.doc_type
      USING ERRCODE = 'P0001';
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER document_counters_forward ON document_counters;
CREATE CONSTRAINT TRIGGER document_counters_forward AFTER INSERT OR UPDATE ON document_counters
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION document_counters_forward_only();
