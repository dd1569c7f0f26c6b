-- Guards whose normal path does nothing run only when their condition can fail. A trigger's WHEN is
-- evaluated inline by the executor; a plpgsql call costs a function entry per row (issue 28: four of
-- the fourteen trigger executions of an issued document did nothing).

-- The ledger's entry counter: the function refuses whenever it runs.
DROP TRIGGER ledger_counters_guard ON ledger_counters;
CREATE TRIGGER ledger_counters_guard BEFORE UPDATE ON ledger_counters
  FOR EACH ROW WHEN (NEW.last_entry_no IS DISTINCT FROM OLD.last_entry_no + 1) EXECUTE FUNCTION ledger_counters_guard();
CREATE TRIGGER ledger_counters_no_delete BEFORE DELETE ON ledger_counters
  FOR EACH ROW EXECUTE FUNCTION ledger_counters_guard();

-- A chain's head. Moved by audit_log_move_head (a trigger, so at depth 1), it points at the row that
-- trigger fires for, forward by construction; any other update is checked in full.
DROP TRIGGER audit_chain_heads_forward ON audit_chain_heads;
CREATE TRIGGER audit_chain_heads_forward BEFORE UPDATE ON audit_chain_heads
  FOR EACH ROW WHEN (pg_trigger_depth() < 1 OR NEW.chain IS DISTINCT FROM OLD.chain OR NEW.last_seq <= OLD.last_seq)
  EXECUTE FUNCTION audit_chain_heads_forward_only();
CREATE TRIGGER audit_chain_heads_no_delete BEFORE DELETE ON audit_chain_heads
  FOR EACH ROW EXECUTE FUNCTION audit_chain_heads_forward_only();

-- Documents: the guard freezes issued rows and drops a draft's allocation number when its figures
-- change; a draft turning into an issued document (the issue) is neither.
DROP TRIGGER documents_frozen_after_issue ON documents;
CREATE TRIGGER documents_frozen_after_issue BEFORE UPDATE ON documents
  FOR EACH ROW WHEN (OLD.status = 'issued' OR (NEW.status = 'draft' AND OLD.allocation_number IS NOT NULL))
  EXECUTE FUNCTION documents_guard_update();
