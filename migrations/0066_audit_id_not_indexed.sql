-- audit_log.id was unique (0001), an index entry for every audit row — two a document issued — that no
-- statement reads: the trail is read by chain and seq (audit_log_chain), and by document at issue
-- (audit_log_document_issue). An id is drawn at random per row (platform/ids.ts) and covered by the row's
-- hash, so a row added or altered by hand is found by `audit verify` whatever its id.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_id_key;
