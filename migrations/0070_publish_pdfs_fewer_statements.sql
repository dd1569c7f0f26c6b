-- publish_pdfs (0040) with one statement fewer a document: the files' insert counts what it inserted, so that the
-- look for files already holding the same content runs only when one was not inserted (a render that ran before,
-- or the same content in another document). The look was 0.06–0.25 ms of a publish's 1.4–1.8 ms here
-- (pg_stat_statements, one document in flight, four runs). Outcomes and writes are unchanged.
CREATE OR REPLACE FUNCTION publish_pdfs(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  bid text := p->>'businessId';
  doc text := p->>'documentId';
  at timestamptz := (p->>'at')::timestamptz;
  current jsonb;
  existing jsonb;
  inserted integer;
  -- Files to insert: one when the two variants are the same content.
  sent integer := CASE WHEN p->'files'->'origin'->>'id' = p->'files'->'copy'->>'id' THEN 1 ELSE 2 END;
  e jsonb := p->'event';
BEGIN
  -- The row lock serializes two publishes of one document (a render retried while the first ran).
  -- NO KEY: the foreign keys of other writes (prints, links) to the document do not wait for it.
  SELECT pdf_files INTO current FROM documents WHERE id = doc AND business_id = bid FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('outcome', 'not_found');
  END IF;
  -- A statement of its own, after the lock: its snapshot sees the links of a publish that held the lock before.
  IF current IS NULL THEN
    SELECT jsonb_object_agg(l.variant, jsonb_build_object('fileId', l.file_id, 'slug', l.slug)) INTO current
      FROM pdf_links l WHERE l.document_id = doc;
  END IF;
  IF current IS NOT NULL THEN
    RETURN jsonb_build_object('outcome', 'published_before', 'pdfFiles', current);
  END IF;

  WITH written AS (
    INSERT INTO files(id, business_id, sha256, mime, size, name, store, created_at)
    SELECT DISTINCT ON (f->>'id') f->>'id', bid, f->>'sha256', p->>'mime', (f->>'size')::integer, f->>'name', p->>'store', at
      FROM (VALUES ('origin'), ('copy')) AS v(variant), LATERAL (SELECT p->'files'->v.variant AS f) AS s
    ON CONFLICT DO NOTHING
    RETURNING 1
  )
  SELECT count(*) INTO inserted FROM written;
  -- Every file inserted: files' unique (business_id, sha256) says no other file of the business holds this
  -- content, which is what the look below finds.
  IF inserted < sent THEN
    SELECT jsonb_object_agg(v.variant, x.id) INTO existing
      FROM (VALUES ('origin'), ('copy')) AS v(variant)
      JOIN files x ON x.business_id = bid AND x.sha256 = p->'files'->v.variant->>'sha256'
     WHERE x.id <> p->'files'->v.variant->>'id';
    IF existing IS NOT NULL THEN
      RETURN jsonb_build_object('outcome', 'files_exist', 'existing', existing);
    END IF;
  END IF;

  INSERT INTO pdf_links(slug, business_id, document_id, variant, file_id, created_at)
  SELECT l->>'slug', bid, doc, v.variant, l->>'fileId', at
    FROM (VALUES ('origin'), ('copy')) AS v(variant), LATERAL (SELECT p->'pdfFiles'->v.variant AS l) AS s;
  PERFORM audit_append(p->'audit', NULL);
  INSERT INTO outbox_events(id, event, account_id, business_id, data, created_at)
  VALUES (e->>'id', e->>'event', e->>'accountId', e->>'businessId', e->'data', at);
  RETURN jsonb_build_object('outcome', 'published', 'pdfFiles', p->'pdfFiles');
END $$;
