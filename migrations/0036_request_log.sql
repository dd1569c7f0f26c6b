-- The request log (issue 32): an account's recent API requests, in the database of the key's mode, kept
-- 7 days. Rows are buffered by each web process and written in batches (src/request-log/buffer.ts), never
-- on a request's own path. The id (`rql_` + the millisecond + random) sorts by time, so the hourly prune is
-- a range of the primary key and needs no index of its own.
CREATE TABLE api_requests (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  key_prefix text NOT NULL,
  -- The request's X-Request-Id: ours (req_…) or the caller's own, which need not be unique.
  request_id text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  status integer NOT NULL,
  reason text,
  duration_ms integer NOT NULL,
  created_at timestamptz(3) NOT NULL
);
-- GET /v1/requests: the account's rows newest first, and the search by request id (then the account's).
CREATE INDEX api_requests_by_account ON api_requests(account_id, created_at DESC, id DESC);
CREATE INDEX api_requests_by_request_id ON api_requests(request_id);
