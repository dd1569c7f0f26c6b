-- A journal entry's reversal is unique per reversed entry (0015), but the unique constraint indexed every
-- entry, each with a null: one index entry written for every document issued, none of them ever read. The
-- same rule on the entries that reverse another, only.
ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_reverses_entry_id_key;
CREATE UNIQUE INDEX journal_entries_reverses ON journal_entries(reverses_entry_id) WHERE reverses_entry_id IS NOT NULL;
