-- The journal lines' guard (0015) once per statement instead of once per line, and checking what the lines'
-- two foreign keys checked. An issue writes five lines in one statement: five plpgsql calls, each with two
-- look-ups, and ten foreign-key checks, each a query that locks the row it finds (FOR KEY SHARE: a WAL record on
-- the accounts every entry of the business names), become one call with one probe of each line's entry and
-- account. Entries and accounts are never deleted nor truncated (journal_entries_immutable, ledger_accounts_guard
-- and their no_truncate triggers), so what the keys still did was refuse a line whose entry or account does not
-- exist: the guard refuses it now, with the foreign-key error code and the table named, as the keys did; what it
-- finds needs no lock, since it cannot go away. The other refusals and their messages are the same.
CREATE OR REPLACE FUNCTION journal_lines_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bad record;
BEGIN
  SELECT a.entry_id, a.business_id, a.account_code, e.business_id AS entry_business, e.written_xact, c.closed
    INTO bad
    -- Each look-up a LATERAL with LIMIT 1, so that it stays one probe of a key per line: as a join or an EXISTS,
    -- PostgreSQL planned a scan of the whole table (a hash join on journal_entries, a hashed subplan over every
    -- closed account), measured with auto_explain.
    FROM added a
    LEFT JOIN LATERAL (SELECT x.business_id, x.written_xact FROM journal_entries x WHERE x.id = a.entry_id LIMIT 1) e ON true
    LEFT JOIN LATERAL (SELECT x.closed_at IS NOT NULL AS closed FROM ledger_accounts x
                        WHERE x.business_id = a.business_id AND x.code = a.account_code LIMIT 1) c ON true
   WHERE e.business_id IS DISTINCT FROM a.business_id
      OR e.written_xact <> pg_current_xact_id()
      OR c.closed IS DISTINCT FROM false
   LIMIT 1;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF bad.entry_business IS NULL THEN
    RAISE EXCEPTION 'journal_lines: entry % does not exist', bad.entry_id
      USING ERRCODE = 'foreign_key_violation', TABLE = 'journal_lines', COLUMN = 'entry_id';
  END IF;
  IF bad.entry_business <> bad.business_id THEN
    RAISE EXCEPTION 'journal_lines: the line''s business is not its entry''s' USING ERRCODE = 'P0001';
  END IF;
  IF bad.written_xact <> pg_current_xact_id() THEN
    RAISE EXCEPTION 'journal_lines: entry % is already written; correct it with a reversing entry', bad.entry_id USING ERRCODE = 'P0001';
  END IF;
  IF bad.closed IS NULL THEN
    RAISE EXCEPTION 'journal_lines: account % does not exist in business %', bad.account_code, bad.business_id
      USING ERRCODE = 'foreign_key_violation', TABLE = 'journal_lines', COLUMN = 'account_code';
  END IF;
  RAISE EXCEPTION 'journal_lines: account % is closed', bad.account_code USING ERRCODE = 'P0001';
END $$;

DROP TRIGGER journal_lines_guard ON journal_lines;
CREATE TRIGGER journal_lines_guard AFTER INSERT ON journal_lines
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION journal_lines_guard();

ALTER TABLE journal_lines DROP CONSTRAINT journal_lines_entry_id_fkey;
ALTER TABLE journal_lines DROP CONSTRAINT journal_lines_business_id_account_code_fkey;
