-- Idempotency-Key on every create (issue 18): one row per (account, key) in the database of the
-- key's mode (live and sandbox are separate databases). A request claims the key by inserting a
-- `pending` row; its 2xx answer is stored (`done`) and replayed to a retry with the same request;
-- a failed request deletes its row, so a retry runs again. See src/platform/http/idempotency.ts.
CREATE TABLE idempotency_keys (
  account_id text NOT NULL,
  idem_key text NOT NULL,
  -- sha256 of method, path and the canonical JSON body (or the route's own fingerprint).
  request_hash text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'done')),
  -- Which claim owns a pending row: only its owner may complete or release it.
  claim_id text NOT NULL,
  -- A pending row whose lease ran out is taken over by a retry (the owner renews it while it runs).
  lease_until timestamptz NOT NULL,
  response_status integer,
  response_body text,
  created_at timestamptz NOT NULL,
  -- Kept at least this long; purged a few rows at a time by later requests.
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, idem_key),
  CHECK (state = 'pending' OR (response_status IS NOT NULL AND response_body IS NOT NULL))
);

CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
