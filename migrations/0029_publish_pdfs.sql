-- Publishing a document's PDFs in one call (issue 28): the render job (prints/render-job.ts) stored
-- the two files, linked them, attached them to the document, read the business's account, appended
-- the audit row and recorded document.pdf_ready in 9 round trips inside one transaction, holding the
-- document's row lock across all of them. publish_pdfs does the same writes, in the same order,
-- inside one statement.
--
-- p: {documentId, businessId, at, mime,
--     files: {origin: {id, sha256, size, name}, copy: {...}},
--     pdfFiles: {origin: {fileId, slug}, copy: {fileId, slug}},
--     audit: audit_append's row, event: {id, event, accountId, businessId, data}}
-- Answers {outcome: 'published' | 'published_before' | 'not_found' | 'files_exist', pdfFiles?, existing?}.
-- 'files_exist': a file of the same content is stored under another id (files are kept once per
-- content and business); nothing but the other file was written, and `existing` names the stored id
-- by variant, for Node to call again with it (the audit row names the ids, and its hash is computed
-- over Node's JSON).
CREATE FUNCTION publish_pdfs(p jsonb, origin bytea, copy bytea) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  bid text := p->>'businessId';
  at timestamptz := (p->>'at')::timestamptz;
  current jsonb;
  existing jsonb;
  e jsonb := p->'event';
BEGIN
  SELECT pdf_files INTO current FROM documents WHERE id = p->>'documentId' AND business_id = bid FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('outcome', 'not_found');
  END IF;
  IF current IS NOT NULL THEN
    RETURN jsonb_build_object('outcome', 'published_before', 'pdfFiles', current);
  END IF;

  -- Content already stored (before, or by a render committing meanwhile: the insert waits for it) keeps
  -- its row; a file this call inserted stays for the next call, which names it by the same id.
  INSERT INTO files(id, business_id, sha256, mime, size, name, content, created_at)
  SELECT DISTINCT ON (f->>'id') f->>'id', bid, f->>'sha256', p->>'mime', (f->>'size')::integer, f->>'name',
         CASE v.variant WHEN 'origin' THEN origin ELSE copy END, at
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
  SELECT l->>'slug', bid, p->>'documentId', v.variant, l->>'fileId', at
    FROM (VALUES ('origin'), ('copy')) AS v(variant), LATERAL (SELECT p->'pdfFiles'->v.variant AS l) AS s;
  UPDATE documents SET pdf_files = p->'pdfFiles', updated_at = at WHERE id = p->>'documentId';
  PERFORM audit_append(p->'audit', NULL);
  INSERT INTO outbox_events(id, event, account_id, business_id, data, created_at)
  VALUES (e->>'id', e->>'event', e->>'accountId', e->>'businessId', e->'data', at);
  RETURN jsonb_build_object('outcome', 'published', 'pdfFiles', p->'pdfFiles');
END $$;

