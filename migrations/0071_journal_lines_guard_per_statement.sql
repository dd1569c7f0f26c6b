-- The journal lines' guard (0015) once per statement instead of once per line: an issue writes five lines in
-- one statement, so five plpgsql calls, each with two look-ups, become one call with one join over the lines
-- the statement added. The refusals and their messages are the same.
--
-- A statement's AFTER triggers run after its row-level ones, the foreign keys' checks among them. The lines'
-- key to their account is now checked at commit, so that a line of another business still meets the guard's
-- refusal first (its account usually does not exist in the other business); an unknown account is still
-- refused, at the end of the transaction (with an issue's single statement, at that statement).
CREATE OR REPLACE FUNCTION journal_lines_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bad record;
BEGIN
  SELECT a.entry_id, a.business_id, a.account_code, e.business_id AS entry_business, e.written_xact
    INTO bad
    -- Each look-up a LATERAL with LIMIT 1, so that it stays one probe of a key per line: as a join or an EXISTS,
    -- PostgreSQL planned a scan of the whole table (a hash join on journal_entries, a hashed subplan over every
    -- closed account), measured with auto_explain.
    FROM added a
    LEFT JOIN LATERAL (SELECT x.business_id, x.written_xact FROM journal_entries x WHERE x.id = a.entry_id LIMIT 1) e ON true
    LEFT JOIN LATERAL (SELECT true AS closed FROM ledger_accounts x
                        WHERE x.business_id = a.business_id AND x.code = a.account_code AND x.closed_at IS NOT NULL LIMIT 1) c ON true
   WHERE e.business_id IS DISTINCT FROM a.business_id
      OR e.written_xact <> pg_current_xact_id()
      OR c.closed
   LIMIT 1;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF bad.entry_business IS DISTINCT FROM bad.business_id THEN
    RAISE EXCEPTION 'journal_lines: the line''s business is not its entry''s' USING ERRCODE = 'P0001';
  END IF;
  IF bad.written_xact <> pg_current_xact_id() THEN
    RAISE EXCEPTION 'journal_lines: entry % is already written; correct it with a reversing entry', bad.entry_id USING ERRCODE = 'P0001';
  END IF;
  RAISE EXCEPTION 'journal_lines: account % is closed', bad.account_code USING ERRCODE = 'P0001';
END $$;

DROP TRIGGER journal_lines_guard ON journal_lines;
CREATE TRIGGER journal_lines_guard AFTER INSERT ON journal_lines
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION journal_lines_guard();

ALTER TABLE journal_lines ALTER CONSTRAINT journal_lines_business_id_account_code_fkey DEFERRABLE INITIALLY DEFERRED;
