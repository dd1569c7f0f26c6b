-- Webhooks: endpoints of an account (per mode database), one delivery per (event, endpoint),
-- and the log of every attempt. The dispatcher fans outbox events out into deliveries and sends
-- them; all state lives here, so a restart loses nothing and many processes can share the queue.

CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  account_id text NOT NULL,
  business_id text REFERENCES businesses(id),
  url text NOT NULL,
  -- Event names to receive; empty means all.
  events text[] NOT NULL DEFAULT '{}',
  secret text NOT NULL CHECK (secret LIKE 'whsec\_%'),
  active boolean NOT NULL DEFAULT true,
  disabled_at timestamptz(3),
  -- Failed attempts since the last success; DISABLE_AFTER_FAILURES of them disable the endpoint.
  consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints(account_id, id);

CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  -- The outbox event; null for the synthetic webhook.test.
  event_id text,
  event text NOT NULL,
  business_id text,
  -- The exact envelope bytes: every retry sends the same body (only the signature time changes).
  payload text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempt_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz(3),
  -- Lease of the dispatcher sending it now; a crashed sender's lease runs out and another retries.
  locked_until timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  delivered_at timestamptz(3),
  failed_at timestamptz(3),
  UNIQUE (event_id, endpoint_id),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries(endpoint_id, id);

CREATE TABLE webhook_attempts (
  delivery_id text NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  n integer NOT NULL CHECK (n >= 1),
  at timestamptz(3) NOT NULL,
  response_status integer,
  duration_ms integer NOT NULL,
  error text,
  -- The first few KB of the answer, for the delivery log.
  response_body text,
  PRIMARY KEY (delivery_id, n)
);
