-- The PCN874 file (issue 20): an export run of a second kind. A PCN874 run covers one VAT period (its
-- from/to are the period's first and last day) and has no OPENFRMT primary id; its `directory` is the
-- produced file's name, unique per business like an OPENFRMT production directory.
ALTER TABLE export_runs DROP CONSTRAINT export_runs_kind_check;
ALTER TABLE export_runs ADD CONSTRAINT export_runs_kind_check CHECK (kind IN ('openfrmt', 'pcn874'));
ALTER TABLE export_runs ALTER COLUMN primary_id DROP NOT NULL;
ALTER TABLE export_runs ADD CONSTRAINT export_runs_openfrmt_primary_id CHECK (kind <> 'openfrmt' OR primary_id IS NOT NULL);

-- The same guard, now null-safe on primary_id and holding the kind fixed too.
CREATE OR REPLACE FUNCTION export_runs_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.status <> 'running' THEN
      RAISE EXCEPTION 'export_runs: a finished run (%) is never deleted', OLD.id USING ERRCODE = 'P0001';
    END IF;
    RETURN OLD;
  END IF;
  IF OLD.status <> 'running' THEN
    RAISE EXCEPTION 'export_runs: a finished run (%) is frozen', OLD.id USING ERRCODE = 'P0001';
  END IF;
  IF NEW.id <> OLD.id OR NEW.business_id <> OLD.business_id OR NEW.kind <> OLD.kind OR NEW.from_date <> OLD.from_date OR NEW.to_date <> OLD.to_date
     OR NEW.cut_off_at <> OLD.cut_off_at OR NEW.primary_id IS DISTINCT FROM OLD.primary_id OR NEW.directory <> OLD.directory
     OR NEW.production_at <> OLD.production_at OR NEW.created_at <> OLD.created_at THEN
    RAISE EXCEPTION 'export_runs: the identity of run % is fixed at its start', OLD.id USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;
