-- Large files in chunks (issue 17: an OPENFRMT export of a million documents is ~100 MB of zip,
-- more than one bytea value should carry and more than a process should hold). Additive only.
--
-- A file larger than one chunk keeps its `files` row (id, sha256, size, mime, name: the same
-- content addressing) with content NULL and chunk_size set; its bytes are the file_chunks rows
-- 0..n-1 in order, each chunk_size bytes but the last. A small file keeps its content inline
-- (chunk_size NULL), as before.
ALTER TABLE files ALTER COLUMN content DROP NOT NULL;
ALTER TABLE files ADD COLUMN chunk_size integer CHECK (chunk_size > 0);
ALTER TABLE files ADD CONSTRAINT files_inline_or_chunked CHECK ((content IS NULL) = (chunk_size IS NOT NULL));

-- business_id: a backup picks every table with one (src/backups/catalog.ts). The chunks are written
-- before their files row, in the same transaction (the file is complete when its row appears), so
-- the foreign key to files is checked at commit.
CREATE TABLE file_chunks (
  file_id text NOT NULL REFERENCES files(id) DEFERRABLE INITIALLY DEFERRED,
  business_id text NOT NULL REFERENCES businesses(id),
  n integer NOT NULL CHECK (n >= 0),
  bytes bytea NOT NULL,
  PRIMARY KEY (file_id, n)
);
-- Large content is mostly compressed already (zips): store it out of line without trying pglz.
ALTER TABLE file_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;

-- The protections of `files`: stored content never changes; chunks are never updated, deleted or
-- truncated, and none is added to a file once its row exists (that would change what it serves).
CREATE FUNCTION file_chunks_guard_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM files WHERE id = NEW.file_id) THEN
    RAISE EXCEPTION 'file_chunks: file % is already stored; its chunks are complete', NEW.file_id USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER file_chunks_complete BEFORE INSERT ON file_chunks
  FOR EACH ROW EXECUTE FUNCTION file_chunks_guard_insert();
CREATE TRIGGER file_chunks_immutable BEFORE UPDATE OR DELETE ON file_chunks
  FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER file_chunks_no_truncate BEFORE TRUNCATE ON file_chunks
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- files_guard (0004) also holds chunk_size: whether content is inline or chunked never changes.
CREATE OR REPLACE FUNCTION files_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.content IS DISTINCT FROM OLD.content OR NEW.sha256 IS DISTINCT FROM OLD.sha256
       OR NEW.size IS DISTINCT FROM OLD.size OR NEW.business_id IS DISTINCT FROM OLD.business_id
       OR NEW.mime IS DISTINCT FROM OLD.mime OR NEW.chunk_size IS DISTINCT FROM OLD.chunk_size THEN
      RAISE EXCEPTION 'files: stored content is immutable (%)', OLD.id USING ERRCODE = 'P0001';
    END IF;
    RETURN NEW;
  END IF;
  IF EXISTS (SELECT 1 FROM expenses WHERE receipt_file_id = OLD.id AND status = 'recorded') THEN
    RAISE EXCEPTION 'files: % is the receipt of a recorded expense and cannot be deleted', OLD.id USING ERRCODE = 'P0001';
  END IF;
  RETURN OLD;
END $$;
