-- Idempotent creates in the web console (issue 18): a mint form carries a one-time token (or a
-- script sends Idempotency-Key). The token row is written in the same transaction as the key it
-- created, so a repeat of the form finds that key and never mints a second one. Created in every
-- database; only the live (control) database is used. See src/console/mint-tokens.ts.
-- Not idempotency_keys (0014): that table stores replayable JSON answers with a claim lease, and
-- its key space belongs to API callers; a console token names a key, never an answer.
CREATE TABLE console_idempotency (
  account_id text NOT NULL REFERENCES accounts(id),
  token text NOT NULL,
  -- What the token created ('key.mint'); another action under the same token is a conflict.
  action text NOT NULL,
  -- sha256 of the normalized form (label, mode, sorted scopes): another body is a conflict.
  request_hash text NOT NULL,
  -- Null only inside the transaction that claims the token, before its key exists.
  key_id text REFERENCES api_keys(id),
  -- The new key's secret sealed (AES-256-GCM) under a key derived from the session cookie token,
  -- which the database never holds; shown again only to that session until reveal_until, then
  -- erased by the console's prune worker.
  sealed_secret text,
  reveal_until timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  -- Kept at least 24 hours; after that the token is free and the prune worker deletes it.
  expires_at timestamptz(3) NOT NULL,
  PRIMARY KEY (account_id, token)
);
CREATE INDEX console_idempotency_expires ON console_idempotency(expires_at);
