-- Prints (src/prints): the print log and the public PDF links.
-- The documents row holds pdf_files (set once), origin_handed_out_at (set once) and print_count
-- (only upwards); these tables hold what the prints area adds.

-- One row per hand-out of a PDF: a print (bytes), a share (link) or an email (link by mail).
-- Append-only. At most one origin per document, whatever the channel: the database enforces
-- "the origin is handed out exactly once" even if the application raced.
CREATE TABLE document_prints (
  id text PRIMARY KEY,
  business_id text NOT NULL REFERENCES businesses(id),
  document_id text NOT NULL REFERENCES documents(id),
  variant text NOT NULL CHECK (variant IN ('origin', 'copy')),
  channel text NOT NULL CHECK (channel IN ('print', 'share', 'email')),
  file_id text NOT NULL REFERENCES files(id),
  key_id text,
  key_prefix text,
  -- Email only: the addresses asked for.
  recipients jsonb,
  created_at timestamptz(3) NOT NULL
);
CREATE UNIQUE INDEX document_prints_one_origin ON document_prints(document_id) WHERE variant = 'origin';
CREATE INDEX document_prints_by_document ON document_prints(document_id, created_at, id);

CREATE FUNCTION document_prints_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'document_prints is append-only' USING ERRCODE = 'P0001';
END $$;
CREATE TRIGGER document_prints_no_update BEFORE UPDATE OR DELETE ON document_prints
  FOR EACH ROW EXECUTE FUNCTION document_prints_append_only();
CREATE TRIGGER document_prints_no_truncate BEFORE TRUNCATE ON document_prints
  FOR EACH STATEMENT EXECUTE FUNCTION document_prints_append_only();

-- Public capability links /api/docs/<slug>/d.pdf: an unguessable slug (>= 128 bits) per PDF.
-- Written in the transaction that sets documents.pdf_files; never changed or removed.
CREATE TABLE pdf_links (
  slug text PRIMARY KEY CHECK (length(slug) >= 22),
  business_id text NOT NULL REFERENCES businesses(id),
  document_id text NOT NULL REFERENCES documents(id),
  variant text NOT NULL CHECK (variant IN ('origin', 'copy')),
  file_id text NOT NULL REFERENCES files(id),
  created_at timestamptz(3) NOT NULL,
  UNIQUE (document_id, variant)
);
CREATE TRIGGER pdf_links_no_update BEFORE UPDATE OR DELETE ON pdf_links
  FOR EACH ROW EXECUTE FUNCTION document_prints_append_only();

-- The email endpoint's own sliding window (default 10 per minute per key) uses rate_limit_hit
-- from 0001 with keys 'email:<key id>'; nothing to add here.
