-- Payments to suppliers (issue 29): recorded through the API against a recorded expense or a saved
-- supplier, by payment method, each with its journal entry (Dr the supplier's account / Cr cash or the
-- bank), written in one transaction. A payment is a fact of the books: written once, never changed.

-- The journal's entries may now record a payment (source 'payment'; the entry is named by the payment
-- row below, which refers to it).
ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_source_check;
ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_source_check
  CHECK (source IN ('document', 'expense', 'manual', 'reversal', 'payment')) NOT VALID;
ALTER TABLE journal_entries VALIDATE CONSTRAINT journal_entries_source_check;

CREATE TABLE supplier_payments (
  id text PRIMARY KEY,
  business_id text NOT NULL REFERENCES businesses(id),
  payment_date date NOT NULL,
  -- The payment method codes of documents (decisions.md "Money and tax"), vouchers aside.
  method smallint NOT NULL CHECK (method IN (1, 2, 3, 4, 8, 9, 91, 92, 93)),
  amount bigint NOT NULL CHECK (amount > 0),
  -- What it pays: a recorded expense (its supplier), or a saved supplier on account.
  expense_id text REFERENCES expenses(id),
  party_id text REFERENCES parties(id),
  -- The accounts of its entry: debited (the supplier's) and credited (cash or the bank).
  supplier_account text NOT NULL,
  paid_from_account text NOT NULL,
  reference text CHECK (char_length(reference) <= 20),
  note text CHECK (char_length(note) <= 500),
  journal_entry_id text NOT NULL UNIQUE REFERENCES journal_entries(id),
  created_by_key_id text,
  created_at timestamptz(3) NOT NULL,
  CHECK (expense_id IS NOT NULL OR party_id IS NOT NULL),
  FOREIGN KEY (business_id, supplier_account) REFERENCES ledger_accounts(business_id, code),
  FOREIGN KEY (business_id, paid_from_account) REFERENCES ledger_accounts(business_id, code)
);
CREATE INDEX supplier_payments_expense ON supplier_payments(expense_id) WHERE expense_id IS NOT NULL;
CREATE INDEX supplier_payments_business ON supplier_payments(business_id, payment_date, id);

CREATE TRIGGER supplier_payments_immutable BEFORE UPDATE OR DELETE ON supplier_payments
  FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER supplier_payments_no_truncate BEFORE TRUNCATE ON supplier_payments
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- A payment is dated when it was made: never inside a closed period of the books (its entry would move
-- out of the month it belongs to), and its entry is its own, of source 'payment', on its date, with a
-- debit of exactly its amount on the supplier's account and a credit of it on the account it was paid from.
CREATE FUNCTION supplier_payments_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  e record;
BEGIN
  IF EXISTS (SELECT 1 FROM ledger_periods WHERE business_id = NEW.business_id AND period = date_trunc('month', NEW.payment_date)::date
                AND reopened_at IS NULL) THEN
    RAISE EXCEPTION 'supplier_payments: % is in a closed period of the books', NEW.payment_date USING ERRCODE = 'P0001';
  END IF;
  SELECT business_id, source, entry_date INTO e FROM journal_entries WHERE id = NEW.journal_entry_id;
  IF e.business_id IS DISTINCT FROM NEW.business_id OR e.source IS DISTINCT FROM 'payment' OR e.entry_date IS DISTINCT FROM NEW.payment_date
     OR (SELECT count(*) FROM journal_lines WHERE entry_id = NEW.journal_entry_id) <> 2
     OR NOT EXISTS (SELECT 1 FROM journal_lines WHERE entry_id = NEW.journal_entry_id AND side = 1 AND account_code = NEW.supplier_account AND amount = NEW.amount)
     OR NOT EXISTS (SELECT 1 FROM journal_lines WHERE entry_id = NEW.journal_entry_id AND side = 2 AND account_code = NEW.paid_from_account AND amount = NEW.amount) THEN
    RAISE EXCEPTION 'supplier_payments: payment % is not the one its journal entry records', NEW.id USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER supplier_payments_guard BEFORE INSERT ON supplier_payments
  FOR EACH ROW EXECUTE FUNCTION supplier_payments_guard();
