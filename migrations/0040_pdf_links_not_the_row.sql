-- Publishing a document's PDFs no longer rewrites its row (issue 28). publish_pdfs set
-- documents.pdf_files beside the two pdf_links rows that already name the same files: an update of a
-- ~2 KB row into its 14 indexes (no HOT: the page has no room, and the row is issued), ~2 KB of WAL and a
-- dead row a document, for a fact pdf_links holds (one row per document and variant, append-only, its
-- files kept by foreign key). Documents are read with their PDFs from pdf_links (documents/snapshot.ts
-- documentColumns); rows published before keep their pdf_files and are read from it.
CREATE OR REPLACE FUNCTION publish_pdfs(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  bid text := p->>'businessId';
  doc text := p->>'documentId';
  at timestamptz := (p->>'at')::timestamptz;
  current jsonb;
  existing jsonb;
  e jsonb := p->'event';
BEGIN
  -- The row lock serializes two publishes of one document (a render retried while the first ran).
  -- NO KEY: the foreign keys of other writes (prints, links) to the document do not wait for it.
  SELECT pdf_files INTO current FROM documents WHERE id = doc AND business_id = bid FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('outcome', 'not_found');
  END IF;
  IF current IS NULL THEN
    SELECT jsonb_object_agg(l.variant, jsonb_build_object('fileId', l.file_id, 'slug', l.slug)) INTO current
      FROM pdf_links l WHERE l.document_id = doc;
  END IF;
  IF current IS NOT NULL THEN
    RETURN jsonb_build_object('outcome', 'published_before', 'pdfFiles', current);
  END IF;

  INSERT INTO files(id, business_id, sha256, mime, size, name, store, created_at)
  SELECT DISTINCT ON (f->>'id') f->>'id', bid, f->>'sha256', p->>'mime', (f->>'size')::integer, f->>'name', p->>'store', at
    FROM (VALUES ('origin'), ('copy')) AS v(variant), LATERAL (SELECT p->'files'->v.variant AS f) AS s
  ON CONFLICT DO NOTHING;
  SELECT jsonb_object_agg(v.variant, x.id) INTO existing
    FROM (VALUES ('origin'), ('copy')) AS v(variant)
    JOIN files x ON x.business_id = bid AND x.sha256 = p->'files'->v.variant->>'sha256'
   WHERE x.id <> p->'files'->v.variant->>'id';
  IF existing IS NOT NULL THEN
    RETURN jsonb_build_object('outcome', 'files_exist', 'existing', existing);
  END IF;

  INSERT INTO pdf_links(slug, business_id, document_id, variant, file_id, created_at)
  SELECT l->>'slug', bid, doc, v.variant, l->>'fileId', at
    FROM (VALUES ('origin'), ('copy')) AS v(variant), LATERAL (SELECT p->'pdfFiles'->v.variant AS l) AS s;
  PERFORM audit_append(p->'audit', NULL);
  INSERT INTO outbox_events(id, event, account_id, business_id, data, created_at)
  VALUES (e->>'id', e->>'event', e->>'accountId', e->>'businessId', e->'data', at);
  RETURN jsonb_build_object('outcome', 'published', 'pdfFiles', p->'pdfFiles');
END $$;

-- Nothing writes pdf_files any more: on an issued document it is frozen with the content (it was
-- "set once"), so raw SQL cannot point a document at other files through it either.
CREATE OR REPLACE FUNCTION documents_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  mutable text[] := ARRAY['allocation_number', 'allocation', 'warnings', 'cancelled_by_document_id',
                          'origin_handed_out_at', 'print_count', 'updated_at',
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
  IF OLD.origin_handed_out_at IS NOT NULL AND NEW.origin_handed_out_at IS DISTINCT FROM OLD.origin_handed_out_at THEN
    RAISE EXCEPTION 'document %: the origin is handed out once', OLD.id USING ERRCODE = 'P0001';
  END IF;
  IF NEW.print_count < OLD.print_count THEN
    RAISE EXCEPTION 'document %: print_count only increases', OLD.id USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;

-- The files of an issued document stay: its PDFs are now named by pdf_links (whose foreign key would
-- refuse too, with a less telling message), older ones by pdf_files, its logo by the snapshot.
CREATE OR REPLACE FUNCTION files_keep_issued_documents() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  doc text;
BEGIN
  SELECT l.document_id INTO doc FROM pdf_links l JOIN documents d ON d.id = l.document_id
   WHERE l.file_id = OLD.id AND d.status = 'issued'
   LIMIT 1;
  IF doc IS NULL THEN
    SELECT d.id INTO doc FROM documents d
     WHERE d.business_id = OLD.business_id AND d.status = 'issued'
       AND (d.pdf_files -> 'origin' ->> 'fileId' = OLD.id
            OR d.pdf_files -> 'copy' ->> 'fileId' = OLD.id
            OR d.snapshot -> 'branding' -> 'logoRef' ->> 'fileId' = OLD.id)
     LIMIT 1;
  END IF;
  IF doc IS NOT NULL THEN
    RAISE EXCEPTION 'files: % belongs to issued document % and cannot be deleted', OLD.id, doc USING ERRCODE = 'P0001';
  END IF;
  RETURN OLD;
END $$;
