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
