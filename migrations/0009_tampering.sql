-- Tampering (issue 16 item 6): the rules that protect the books, completed where raw SQL could
-- still change or remove rows. Additive only; earlier migrations are untouched.
--
-- What PostgreSQL cannot refuse (the table owner or a superuser switching triggers off, or
-- session_replication_role = replica) is detected afterwards by `pinkas audit verify`
-- (src/platform/audit.ts, src/documents/audit-check.ts): disabled triggers, and issued documents that differ from their issue
-- audit row. The restore of a backup runs with session_replication_role = replica on purpose, so
-- these triggers stay ENABLE (origin), not ENABLE ALWAYS.

-- TRUNCATE skips row triggers: every protected table refuses it by a statement trigger.
CREATE TRIGGER pdf_links_no_truncate BEFORE TRUNCATE ON pdf_links
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
CREATE TRIGGER files_no_truncate BEFORE TRUNCATE ON files
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
CREATE TRIGGER document_counters_no_truncate BEFORE TRUNCATE ON document_counters
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- The stored files of an issued document (its signed PDFs, and the logo its snapshot shows) are
-- part of the books: never deleted. (Prints, links, export runs and backups hold theirs by
-- foreign key; documents hold theirs in jsonb, hence this trigger.)
CREATE FUNCTION files_keep_issued_documents() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  doc text;
BEGIN
  SELECT d.id INTO doc FROM documents d
   WHERE d.business_id = OLD.business_id AND d.status = 'issued'
     AND (d.pdf_files -> 'origin' ->> 'fileId' = OLD.id
          OR d.pdf_files -> 'copy' ->> 'fileId' = OLD.id
          OR d.snapshot -> 'branding' -> 'logoRef' ->> 'fileId' = OLD.id)
   LIMIT 1;
  IF doc IS NOT NULL THEN
    RAISE EXCEPTION 'files: % belongs to issued document % and cannot be deleted', OLD.id, doc USING ERRCODE = 'P0001';
  END IF;
  RETURN OLD;
END $$;
CREATE TRIGGER files_keep_issued BEFORE DELETE ON files
  FOR EACH ROW EXECUTE FUNCTION files_keep_issued_documents();

-- The head of an audit chain only moves forward, onto a row of its chain (appendAudit inserts the
-- row, then sets the head to its seq and hash); a head is never removed, or the walk would skip
-- its chain.
CREATE FUNCTION audit_chain_heads_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'audit_chain_heads: the head of chain % is never deleted', OLD.chain USING ERRCODE = 'P0001';
  END IF;
  IF NEW.chain IS DISTINCT FROM OLD.chain OR NEW.last_seq <= OLD.last_seq THEN
    RAISE EXCEPTION 'audit_chain_heads: the head of chain % only moves forward', OLD.chain USING ERRCODE = 'P0001';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM audit_log WHERE chain = NEW.chain AND seq = NEW.last_seq AND hash = NEW.last_hash) THEN
    RAISE EXCEPTION 'audit_chain_heads: the head of chain % must point at a row of the chain', OLD.chain USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER audit_chain_heads_forward BEFORE UPDATE OR DELETE ON audit_chain_heads
  FOR EACH ROW EXECUTE FUNCTION audit_chain_heads_forward_only();
CREATE TRIGGER audit_chain_heads_no_truncate BEFORE TRUNCATE ON audit_chain_heads
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- `audit verify` finds the issue row of every issued document.
CREATE INDEX audit_log_document_issue ON audit_log(entity_id, seq)
  WHERE entity_type = 'document' AND action IN ('document.issue', 'document.credit_note');
