-- The issue path in fewer round trips (issue 17). Additive only.

-- The head of an audit chain follows the rows appended to it: appendAudit locks the head, reads the
-- last hash, and inserts the next row; this trigger moves the head onto it in the same statement,
-- so the insert and the head update are one round trip. Only forward (a row with a lower seq, as a
-- restore or a bulk load may write, leaves the head alone); audit_chain_heads_forward still checks
-- every move. Like the other triggers it does not fire under session_replication_role = replica
-- (a restore writes the heads itself).
CREATE FUNCTION audit_log_move_head() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE audit_chain_heads SET last_seq = NEW.seq, last_hash = NEW.hash
   WHERE chain = NEW.chain AND last_seq < NEW.seq;
  RETURN NULL;
END $$;
CREATE TRIGGER audit_log_move_head AFTER INSERT ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_move_head();

-- Issued documents per business and Israel calendar month, counted in the issuing transaction, so
-- the monthly ceiling reads one row instead of counting the month's documents (a cost that grew
-- with the books). Backfilled from the documents issued so far.
CREATE TABLE document_month_counts (
  business_id text NOT NULL REFERENCES businesses(id),
  month date NOT NULL,
  count bigint NOT NULL CHECK (count >= 0),
  PRIMARY KEY (business_id, month)
);
INSERT INTO document_month_counts(business_id, month, count)
SELECT business_id, date_trunc('month', issued_at AT TIME ZONE 'Asia/Jerusalem')::date, count(*)
  FROM documents WHERE status = 'issued' AND issued_at IS NOT NULL
 GROUP BY 1, 2;
