-- Exports and backups (issue 7).
-- An export run is one OPENFRMT production: the directory name (MMDDhhmm of the production
-- minute) is unique per business, so two runs in one minute take the next minute (spec §2.2).
-- A finished run (completed or failed) is a record of what was handed to an auditor: frozen.

CREATE TABLE export_runs (
  id text PRIMARY KEY,
  business_id text NOT NULL REFERENCES businesses(id),
  kind text NOT NULL DEFAULT 'openfrmt' CHECK (kind IN ('openfrmt')),
  from_date date NOT NULL,
  to_date date NOT NULL CHECK (to_date >= from_date),
  status text NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  -- The fixed set: documents issued up to this instant (the run's start).
  cut_off_at timestamptz(3) NOT NULL,
  -- The production minute written into the directory name and A000/1026-1027.
  production_at timestamptz(3) NOT NULL,
  directory text NOT NULL,
  primary_id text NOT NULL CHECK (primary_id ~ '^[0-9]{15}$'),
  record_counts jsonb,
  file_id text REFERENCES files(id),
  verification jsonb,
  report jsonb,
  error text,
  created_by_key_id text,
  created_at timestamptz(3) NOT NULL,
  completed_at timestamptz(3),
  UNIQUE (business_id, directory),
  CHECK (status = 'running' OR completed_at IS NOT NULL),
  CHECK (status <> 'completed' OR (file_id IS NOT NULL AND verification IS NOT NULL))
);
CREATE INDEX export_runs_list ON export_runs(business_id, created_at DESC, id DESC);

CREATE FUNCTION export_runs_guard() RETURNS trigger LANGUAGE plpgsql AS $$
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
  IF NEW.id <> OLD.id OR NEW.business_id <> OLD.business_id OR NEW.from_date <> OLD.from_date OR NEW.to_date <> OLD.to_date
     OR NEW.cut_off_at <> OLD.cut_off_at OR NEW.primary_id <> OLD.primary_id OR NEW.directory <> OLD.directory
     OR NEW.production_at <> OLD.production_at OR NEW.created_at <> OLD.created_at THEN
    RAISE EXCEPTION 'export_runs: the identity of run % is fixed at its start', OLD.id USING ERRCODE = 'P0001';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER export_runs_frozen BEFORE UPDATE OR DELETE ON export_runs
  FOR EACH ROW EXECUTE FUNCTION export_runs_guard();
CREATE TRIGGER export_runs_no_truncate BEFORE TRUNCATE ON export_runs
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- The export reads issued documents in keyset order (document_date, doc_type, doc_number): this
-- index serves each chunk without sorting the rest of the period (additive; documents are 0002's).
CREATE INDEX documents_export_order ON documents(business_id, document_date, doc_type, doc_number) WHERE status = 'issued';

-- A backup: a zip of every record of the business as JSON plus its files. Write-once.
CREATE TABLE backups (
  id text PRIMARY KEY,
  business_id text NOT NULL REFERENCES businesses(id),
  file_id text NOT NULL REFERENCES files(id),
  -- {format, tables: {name: rowCount}, files: n, sha256 of the manifest}
  summary jsonb NOT NULL,
  created_by_key_id text,
  created_at timestamptz(3) NOT NULL
);
CREATE INDEX backups_list ON backups(business_id, created_at DESC, id DESC);

CREATE TRIGGER backups_immutable BEFORE UPDATE OR DELETE ON backups
  FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER backups_no_truncate BEFORE TRUNCATE ON backups
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
