-- The books (issue 20): a chart of accounts per business and a double-entry journal written in the
-- same transaction as the fact it records (an issued document, a recorded expense or its storno, a
-- manual entry). Amounts in agorot. An entry is immutable once written, like the document it comes
-- from; a correction is a reversing entry.

-- Accounts are referred to by (business, code): the default chart (src/ledger/chart.ts) is written
-- lazily, an account at a time as a posting first needs it, and whole when the chart is first read.
CREATE TABLE ledger_accounts (
  business_id text NOT NULL REFERENCES businesses(id),
  code text NOT NULL CHECK (code ~ '^[0-9A-Za-z-]{1,15}$'),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 50),
  kind text NOT NULL CHECK (kind IN ('asset', 'liability', 'equity', 'revenue', 'expense')),
  -- B110 field 1406 (trial-balance code) and its description.
  trial_balance_code text NOT NULL CHECK (trial_balance_code ~ '^[0-9A-Za-z-]{1,15}$'),
  trial_balance_name text NOT NULL,
  -- Set for the sub-account of a saved party (customers 1100-C…, suppliers 2100-S…).
  party_id text REFERENCES parties(id),
  closed_at timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  PRIMARY KEY (business_id, code)
);

-- The business's journal entries, numbered 1, 2, 3… without gaps in the order they were written.
CREATE TABLE ledger_counters (
  business_id text PRIMARY KEY REFERENCES businesses(id),
  last_entry_no bigint NOT NULL CHECK (last_entry_no > 0)
);

CREATE TABLE journal_entries (
  id text PRIMARY KEY,
  business_id text NOT NULL REFERENCES businesses(id),
  entry_no bigint NOT NULL CHECK (entry_no > 0),
  entry_date date NOT NULL,
  -- What the entry records: an issued document, a recorded expense (or its storno row), a manual
  -- entry, or the reversal of a manual entry.
  source text NOT NULL CHECK (source IN ('document', 'expense', 'manual', 'reversal')),
  document_id text REFERENCES documents(id),
  expense_id text REFERENCES expenses(id),
  -- B100 1357–1358: the document it comes from (our doc type and number, or the supplier's number).
  reference text,
  reference_doc_type integer,
  description text NOT NULL,
  reverses_entry_id text UNIQUE REFERENCES journal_entries(id),
  created_by_key_id text,
  created_at timestamptz(3) NOT NULL,
  -- The transaction that wrote it (set by trigger): lines may be added in that transaction only.
  written_xact xid8 NOT NULL DEFAULT pg_current_xact_id(),
  UNIQUE (business_id, entry_no),
  CHECK ((source = 'document') = (document_id IS NOT NULL)),
  CHECK ((source = 'expense') = (expense_id IS NOT NULL)),
  CHECK ((source = 'reversal') = (reverses_entry_id IS NOT NULL))
);
-- One entry per document and per expense row: a retried issue can never post twice.
CREATE UNIQUE INDEX journal_entries_document ON journal_entries(document_id) WHERE document_id IS NOT NULL;
CREATE UNIQUE INDEX journal_entries_expense ON journal_entries(expense_id) WHERE expense_id IS NOT NULL;
CREATE INDEX journal_entries_date ON journal_entries(business_id, entry_date, entry_no);

CREATE TABLE journal_lines (
  entry_id text NOT NULL REFERENCES journal_entries(id),
  line_no integer NOT NULL CHECK (line_no > 0),
  business_id text NOT NULL,
  account_code text NOT NULL,
  -- B100 1366: 1 debit, 2 credit. Amounts are positive; the side carries the sign.
  side smallint NOT NULL CHECK (side IN (1, 2)),
  amount bigint NOT NULL CHECK (amount > 0),
  PRIMARY KEY (entry_id, line_no),
  FOREIGN KEY (business_id, account_code) REFERENCES ledger_accounts(business_id, code)
);
CREATE INDEX journal_lines_account ON journal_lines(business_id, account_code);

-- Written once: entries and their lines never change and are never deleted.
CREATE TRIGGER journal_entries_immutable BEFORE UPDATE OR DELETE ON journal_entries
  FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER journal_entries_no_truncate BEFORE TRUNCATE ON journal_entries
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
CREATE TRIGGER journal_lines_immutable BEFORE UPDATE OR DELETE ON journal_lines
  FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER journal_lines_no_truncate BEFORE TRUNCATE ON journal_lines
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- Lines belong to their entry's business, are added only while the entry is being written (the
-- same transaction), and never to a closed account.
CREATE FUNCTION journal_lines_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  e record;
BEGIN
  SELECT business_id, written_xact INTO e FROM journal_entries WHERE id = NEW.entry_id;
  IF e.business_id IS DISTINCT FROM NEW.business_id THEN
    RAISE EXCEPTION 'journal_lines: the line''s business is not its entry''s' USING ERRCODE = 'P0001';
  END IF;
  IF e.written_xact <> pg_current_xact_id() THEN
    RAISE EXCEPTION 'journal_lines: entry % is already written; correct it with a reversing entry', NEW.entry_id USING ERRCODE = 'P0001';
  END IF;
  IF EXISTS (SELECT 1 FROM ledger_accounts WHERE business_id = NEW.business_id AND code = NEW.account_code AND closed_at IS NOT NULL) THEN
    RAISE EXCEPTION 'journal_lines: account % is closed', NEW.account_code USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER journal_lines_guard BEFORE INSERT ON journal_lines
  FOR EACH ROW EXECUTE FUNCTION journal_lines_guard();

CREATE FUNCTION journal_entries_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.written_xact := pg_current_xact_id();
  RETURN NEW;
END $$;
CREATE TRIGGER journal_entries_stamp BEFORE INSERT ON journal_entries
  FOR EACH ROW EXECUTE FUNCTION journal_entries_stamp();

-- Balanced at commit: every entry has two lines or more and its debits equal its credits.
CREATE FUNCTION journal_entries_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  b record;
BEGIN
  SELECT count(*) AS lines,
         coalesce(sum(amount) FILTER (WHERE side = 1), 0) AS debit,
         coalesce(sum(amount) FILTER (WHERE side = 2), 0) AS credit
    INTO b FROM journal_lines WHERE entry_id = NEW.id;
  IF b.lines < 2 OR b.debit <> b.credit THEN
    RAISE EXCEPTION 'journal_entries: entry % is not balanced (% lines, debit %, credit %)', NEW.id, b.lines, b.debit, b.credit
      USING ERRCODE = 'P0001';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER journal_entries_balanced AFTER INSERT ON journal_entries
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION journal_entries_balanced();

-- An account is never deleted (its lines refer to it), and its code, kind and party never change.
CREATE FUNCTION ledger_accounts_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'ledger_accounts: accounts are never deleted; close % instead', OLD.code USING ERRCODE = 'P0001';
  END IF;
  IF NEW.business_id IS DISTINCT FROM OLD.business_id OR NEW.code IS DISTINCT FROM OLD.code
     OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.party_id IS DISTINCT FROM OLD.party_id THEN
    RAISE EXCEPTION 'ledger_accounts: the code, kind and party of % never change', OLD.code USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_accounts_guard BEFORE UPDATE OR DELETE ON ledger_accounts
  FOR EACH ROW EXECUTE FUNCTION ledger_accounts_guard();
CREATE TRIGGER ledger_accounts_no_truncate BEFORE TRUNCATE ON ledger_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- The counter only moves forward, by one.
CREATE FUNCTION ledger_counters_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' OR NEW.last_entry_no <> OLD.last_entry_no + 1 THEN
    RAISE EXCEPTION 'ledger_counters: the entry counter only moves forward by one' USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_counters_guard BEFORE UPDATE OR DELETE ON ledger_counters
  FOR EACH ROW EXECUTE FUNCTION ledger_counters_guard();
CREATE TRIGGER ledger_counters_no_truncate BEFORE TRUNCATE ON ledger_counters
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
