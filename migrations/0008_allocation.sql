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

-- A draft's allocation number asked through POST …/documents/{id}/allocation (allocation has
-- `figures`) is valid only for those figures: an edit of what the authority saw drops the number,
-- so a strict business cannot issue the draft with a number approved for other figures. A number
-- the caller sets in the same edit (or one it gave itself) is left alone.
CREATE FUNCTION documents_draft_allocation_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'draft' AND NEW.status = 'draft'
     AND OLD.allocation_number IS NOT NULL
     AND NEW.allocation_number IS NOT DISTINCT FROM OLD.allocation_number
     AND OLD.allocation IS NOT NULL AND OLD.allocation ? 'figures'
     AND NEW.allocation IS NOT DISTINCT FROM OLD.allocation
     AND (NEW.doc_type, NEW.party, NEW.lines, NEW.price_mode, NEW.note, NEW.document_date, NEW.vat_rate_bp, NEW.discount_amount)
         IS DISTINCT FROM (OLD.doc_type, OLD.party, OLD.lines, OLD.price_mode, OLD.note, OLD.document_date, OLD.vat_rate_bp, OLD.discount_amount)
  THEN
    NEW.allocation_number := NULL;
    NEW.allocation := OLD.allocation || jsonb_build_object(
      'status', 'failed', 'number', NULL,
      'error', 'the draft changed after its allocation number was granted: request it again (POST …/allocation)');
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER documents_draft_allocation_stale BEFORE UPDATE ON documents
  FOR EACH ROW EXECUTE FUNCTION documents_draft_allocation_stale();
