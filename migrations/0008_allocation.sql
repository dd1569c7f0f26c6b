-- Allocation numbers (Israel Invoices): each business's grant at the tax authority and the
-- consent flows in progress. The allocation state of a document lives on the document row
-- (0002: allocation_number null -> value once, allocation and warnings jsonb).

-- One business's OAuth2 grant (authorization code flow, refresh tokens). provider 'simulator'
-- marks a grant made through the simulated consent screen (sandbox, development).
CREATE TABLE ita_connections (
  business_id text PRIMARY KEY REFERENCES businesses(id),
  provider text NOT NULL CHECK (provider IN ('ita', 'simulator')),
  access_token text NOT NULL,
  access_expires_at timestamptz(3) NOT NULL,
  refresh_token text NOT NULL,
  refresh_expires_at timestamptz(3) NOT NULL,
  scope text,
  consented_on text,
  -- Set when the authority refused the refresh token: the dealer must consent again.
  broken_at timestamptz(3),
  broken_reason text,
  connected_at timestamptz(3) NOT NULL,
  refreshed_at timestamptz(3),
  -- The refresh_expires_at the `allocation.connection_expiring` event was sent for (once per expiry).
  expiry_warned_for timestamptz(3),
  updated_at timestamptz(3) NOT NULL
);
CREATE INDEX ita_connections_expiry ON ita_connections(refresh_expires_at);

-- A consent flow started by POST /v1/businesses/{bid}/allocation/connect; `state` travels
-- through the authority's consent screen and comes back to GET /ita/callback. Single use.
CREATE TABLE ita_consent_requests (
  state text PRIMARY KEY,
  business_id text NOT NULL REFERENCES businesses(id),
  key_id text,
  account_id text,
  return_url text,
  created_at timestamptz(3) NOT NULL,
  expires_at timestamptz(3) NOT NULL,
  completed_at timestamptz(3),
  outcome text CHECK (outcome IN ('connected', 'denied', 'failed'))
);
CREATE INDEX ita_consent_requests_business ON ita_consent_requests(business_id, created_at);
