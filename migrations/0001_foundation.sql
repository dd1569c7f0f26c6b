-- Foundation: accounts, keys, plans (read from the live database: the control plane),
-- businesses, parties, files, numbering counters, audit trail, outbox, usage counters.
-- Every database (live and sandbox) gets the same schema.

CREATE TABLE plans (
  key text PRIMARY KEY,
  name text NOT NULL,
  max_docs_per_month integer CHECK (max_docs_per_month >= 0),
  max_expenses_per_month integer CHECK (max_expenses_per_month >= 0),
  created_at timestamptz(3) NOT NULL
);

CREATE TABLE accounts (
  id text PRIMARY KEY,
  name text NOT NULL,
  email text UNIQUE,
  phone text,
  password_hash text,
  approval_status text NOT NULL CHECK (approval_status IN ('approved', 'pending', 'suspended')),
  max_active_keys integer NOT NULL DEFAULT 10 CHECK (max_active_keys >= 0),
  ocr_granted boolean NOT NULL DEFAULT false,
  -- Account-level ceilings win over the business's plan; null means "no override".
  max_docs_per_month integer CHECK (max_docs_per_month >= 0),
  max_expenses_per_month integer CHECK (max_expenses_per_month >= 0),
  created_at timestamptz(3) NOT NULL
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  mode text NOT NULL CHECK (mode IN ('live', 'test')),
  prefix text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  label text,
  scopes text[] NOT NULL,
  created_at timestamptz(3) NOT NULL,
  last_used_at timestamptz(3),
  expires_at timestamptz(3),
  revoked_at timestamptz(3)
);
CREATE INDEX api_keys_account ON api_keys(account_id);

-- Sliding-window log of the last N accepted request times (ms) per key, for several API
-- processes sharing one PostgreSQL server. The embedded engine keeps this in memory instead.
CREATE TABLE rate_limit_windows (
  key_id text PRIMARY KEY,
  hits bigint[] NOT NULL
);

-- Returns (allowed, remaining, retry_after_ms). A request is allowed when fewer than lim
-- requests were accepted in (now - window, now]. Exact: no fixed buckets.
CREATE FUNCTION rate_limit_hit(p_key text, p_now bigint, p_window bigint, p_lim integer)
RETURNS TABLE (allowed boolean, remaining integer, retry_after_ms bigint)
LANGUAGE plpgsql AS $$
DECLARE
  recent bigint[];
BEGIN
  INSERT INTO rate_limit_windows(key_id, hits) VALUES (p_key, '{}') ON CONFLICT (key_id) DO NOTHING;
  PERFORM 1 FROM rate_limit_windows WHERE key_id = p_key FOR UPDATE;
  SELECT coalesce(array_agg(h ORDER BY h), '{}') INTO recent
    FROM rate_limit_windows w, unnest(w.hits) AS h
    WHERE w.key_id = p_key AND h > p_now - p_window;
  IF coalesce(array_length(recent, 1), 0) < p_lim THEN
    recent := recent || p_now;
    UPDATE rate_limit_windows SET hits = recent WHERE key_id = p_key;
    RETURN QUERY SELECT true, p_lim - array_length(recent, 1), 0::bigint;
  ELSE
    UPDATE rate_limit_windows SET hits = recent WHERE key_id = p_key;
    RETURN QUERY SELECT false, 0, recent[array_length(recent, 1) - p_lim + 1] + p_window - p_now;
  END IF;
END $$;

CREATE TABLE businesses (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  created_by_key_id text NOT NULL,
  name text NOT NULL,
  tax_id text NOT NULL,
  dealer_type text NOT NULL CHECK (dealer_type IN ('patur', 'murshe', 'company', 'ngo')),
  address text,
  phone text,
  email text,
  default_vat_rate_bp integer CHECK (default_vat_rate_bp BETWEEN 0 AND 10000),
  require_allocation boolean NOT NULL DEFAULT false,
  branding jsonb NOT NULL DEFAULT '{}'::jsonb,
  approval_status text NOT NULL DEFAULT 'approved' CHECK (approval_status IN ('approved', 'pending', 'suspended')),
  plan_key text,
  deactivated_at timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL
);
CREATE INDEX businesses_account ON businesses(account_id, created_at);

-- The numbering series of each (business, docType). Documents take the next number by
-- updating this row inside the issuing transaction (a row lock, never a sequence).
-- last_number is null until the first issue; start_number is settable only until then.
CREATE TABLE document_counters (
  business_id text NOT NULL REFERENCES businesses(id),
  doc_type integer NOT NULL CHECK (doc_type IN (305, 320, 330, 400)),
  start_number bigint NOT NULL DEFAULT 1 CHECK (start_number >= 1),
  last_number bigint,
  PRIMARY KEY (business_id, doc_type)
);

-- Content-addressed per business: one row per distinct content.
CREATE TABLE files (
  id text PRIMARY KEY,
  business_id text NOT NULL REFERENCES businesses(id),
  sha256 text NOT NULL,
  mime text NOT NULL,
  size integer NOT NULL,
  name text NOT NULL,
  content bytea NOT NULL,
  created_at timestamptz(3) NOT NULL,
  UNIQUE (business_id, sha256)
);

CREATE TABLE parties (
  id text PRIMARY KEY,
  business_id text NOT NULL REFERENCES businesses(id),
  key text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('customer', 'supplier', 'both')),
  name text NOT NULL,
  tax_id text,
  phone text,
  phone_last9 text,
  email text,
  address text,
  digital_doc_consent_at timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  UNIQUE (business_id, key)
);
CREATE INDEX parties_phone ON parties(business_id, phone_last9);
CREATE INDEX parties_name ON parties(business_id, name);

CREATE TABLE party_key_counters (
  business_id text NOT NULL REFERENCES businesses(id),
  series text NOT NULL CHECK (series IN ('C', 'S')),
  last_number integer NOT NULL,
  PRIMARY KEY (business_id, series)
);

-- Audit trail: append-only, hash-chained per chain (a business, or an account for
-- account-level writes). hash = sha256(prev_hash || canonical JSON of the row).
CREATE TABLE audit_log (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  chain text NOT NULL,
  at timestamptz(3) NOT NULL,
  account_id text,
  key_id text,
  business_id text,
  action text NOT NULL,
  entity_type text NOT NULL,
  entity_id text NOT NULL,
  before jsonb,
  after jsonb,
  prev_hash text NOT NULL,
  hash text NOT NULL
);
CREATE INDEX audit_log_chain ON audit_log(chain, seq);

CREATE TABLE audit_chain_heads (
  chain text PRIMARY KEY,
  last_seq bigint NOT NULL,
  last_hash text NOT NULL
);

CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'P0001';
END $$;

CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- Transactional outbox: events are written in the same transaction as the change.
CREATE TABLE outbox_events (
  id text PRIMARY KEY,
  event text NOT NULL,
  account_id text NOT NULL,
  business_id text,
  data jsonb NOT NULL,
  created_at timestamptz(3) NOT NULL,
  dispatched_at timestamptz(3)
);
CREATE INDEX outbox_pending ON outbox_events(created_at) WHERE dispatched_at IS NULL;

-- Per-day counters: limits (exact, checked in the writing transaction) and usage figures.
-- subject is 'acct:<id>', 'key:<id>' or 'biz:<id>'.
CREATE TABLE usage_daily (
  day date NOT NULL,
  subject text NOT NULL,
  metric text NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (subject, metric, day)
);

-- Durable background jobs (PDF rendering, allocation requests...): enqueued in the transaction
-- of the change that needs them, claimed with SKIP LOCKED, retried with backoff. At most one job
-- per (kind, ref_id), so enqueueing twice is harmless.
CREATE TABLE jobs (
  id text PRIMARY KEY,
  kind text NOT NULL,
  business_id text,
  ref_id text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  run_at timestamptz(3) NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz(3),
  last_error text,
  done_at timestamptz(3),
  failed_at timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  UNIQUE (kind, ref_id)
);
CREATE INDEX jobs_due ON jobs(run_at) WHERE done_at IS NULL AND failed_at IS NULL;
