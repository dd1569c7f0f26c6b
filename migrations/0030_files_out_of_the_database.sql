-- Files out of the database (issue 31): a file's bytes live in a content-addressed store outside
-- PostgreSQL (a folder under DATA_DIR/files, or an S3-compatible bucket); its `files` row keeps the
-- metadata and the sha256 every read is checked against.
--
-- files.store names where the bytes are: NULL, in this database as before (content inline, or
-- file_chunks when chunk_size is set, 0012); 'fs' or 's3', in that store, with content and chunk_size
-- NULL. Rows written before this migration keep working as they are; `pinkas files migrate` moves
-- their bytes out (writes the object, checks it, then clears content and deletes the chunks).
ALTER TABLE files ADD COLUMN store text CHECK (store IN ('fs', 's3'));
ALTER TABLE files DROP CONSTRAINT files_inline_or_chunked;
ALTER TABLE files ADD CONSTRAINT files_where_stored CHECK (
  CASE WHEN store IS NULL THEN (content IS NULL) = (chunk_size IS NOT NULL)
       ELSE content IS NULL AND chunk_size IS NULL END);

-- The orphan sweep asks, for each object of a store, whether any row of the mode names its content.
CREATE INDEX files_sha256 ON files(sha256);

-- files_guard (0004, 0012): what a file is never changes. The one change allowed is the move of its
-- bytes out of the database: store from NULL to a backend with content and chunk_size cleared, or
-- from one backend to another (the content is the same object, addressed by the same sha256).
CREATE OR REPLACE FUNCTION files_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.sha256 IS DISTINCT FROM OLD.sha256 OR NEW.size IS DISTINCT FROM OLD.size
       OR NEW.business_id IS DISTINCT FROM OLD.business_id OR NEW.mime IS DISTINCT FROM OLD.mime THEN
      RAISE EXCEPTION 'files: stored content is immutable (%)', OLD.id USING ERRCODE = 'P0001';
    END IF;
    IF (NEW.store IS NULL AND (OLD.store IS NOT NULL OR NEW.content IS DISTINCT FROM OLD.content OR NEW.chunk_size IS DISTINCT FROM OLD.chunk_size))
       OR (NEW.store IS NOT NULL AND (NEW.content IS NOT NULL OR NEW.chunk_size IS NOT NULL)) THEN
      RAISE EXCEPTION 'files: stored content is immutable (%)', OLD.id USING ERRCODE = 'P0001';
    END IF;
    RETURN NEW;
  END IF;
  IF EXISTS (SELECT 1 FROM expenses WHERE receipt_file_id = OLD.id AND status = 'recorded') THEN
    RAISE EXCEPTION 'files: % is the receipt of a recorded expense and cannot be deleted', OLD.id USING ERRCODE = 'P0001';
  END IF;
  RETURN OLD;
END $$;

-- file_chunks (0012) stay append-only, except that the chunks of a file whose bytes were moved to a
-- store (files.store set, by the statement before in the same transaction) are deleted.
CREATE FUNCTION file_chunks_guard_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND EXISTS (SELECT 1 FROM files WHERE id = OLD.file_id AND store IS NOT NULL) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'file_chunks is append-only: % refused', TG_OP USING ERRCODE = 'P0001';
END $$;
DROP TRIGGER file_chunks_immutable ON file_chunks;
CREATE TRIGGER file_chunks_immutable BEFORE UPDATE OR DELETE ON file_chunks
  FOR EACH ROW EXECUTE FUNCTION file_chunks_guard_change();

-- publish_pdfs (0029) wrote the two PDFs' bytes into files.content. Now the render job puts them into the
-- store first and publish_pdfs records the rows naming it (p.store): the same writes, in the same order, in
-- one statement, without the bytes.
DROP FUNCTION publish_pdfs(jsonb, bytea, bytea);
CREATE FUNCTION publish_pdfs(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
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
  SELECT l->>'slug', bid, p->>'documentId', v.variant, l->>'fileId', at
    FROM (VALUES ('origin'), ('copy')) AS v(variant), LATERAL (SELECT p->'pdfFiles'->v.variant AS l) AS s;
  UPDATE documents SET pdf_files = p->'pdfFiles', updated_at = at WHERE id = p->>'documentId';
  PERFORM audit_append(p->'audit', NULL);
  INSERT INTO outbox_events(id, event, account_id, business_id, data, created_at)
  VALUES (e->>'id', e->>'event', e->>'accountId', e->>'businessId', e->'data', at);
  RETURN jsonb_build_object('outcome', 'published', 'pdfFiles', p->'pdfFiles');
END $$;
