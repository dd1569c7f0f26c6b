-- Web console: signed-in sessions with an SMS second factor, one-time codes, sign-in attempts
-- (rate limiting and lockout), and the console's own signing secret. Created in every database;
-- only the live (control) database is used, next to accounts and api_keys.

-- A session is known by the SHA-256 of its cookie token (the token itself is never stored).
-- second_factor_at is null until the SMS code was accepted: such a session can only verify.
CREATE TABLE console_sessions (
  id text PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  account_id text NOT NULL REFERENCES accounts(id),
  created_at timestamptz(3) NOT NULL,
  expires_at timestamptz(3) NOT NULL,
  last_seen_at timestamptz(3) NOT NULL,
  second_factor_at timestamptz(3),
  ip text,
  user_agent text,
  ended_at timestamptz(3)
);
CREATE INDEX console_sessions_account ON console_sessions(account_id, created_at);

-- One-time codes sent by SMS. A resend supersedes the previous code of the session.
CREATE TABLE console_otps (
  id text PRIMARY KEY,
  session_id text NOT NULL REFERENCES console_sessions(id),
  code_hash text NOT NULL,
  created_at timestamptz(3) NOT NULL,
  expires_at timestamptz(3) NOT NULL,
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  consumed_at timestamptz(3),
  superseded_at timestamptz(3)
);
CREATE INDEX console_otps_session ON console_otps(session_id, created_at);

-- Every sign-in attempt (password or code). Lockout counts recent failures per email and per
-- address; the email is recorded even when no account has it, so unknown emails lock out too.
CREATE TABLE console_sign_in_attempts (
  id bigserial PRIMARY KEY,
  at timestamptz(3) NOT NULL,
  email text NOT NULL,
  ip text NOT NULL,
  account_id text,
  step text NOT NULL CHECK (step IN ('password', 'code')),
  success boolean NOT NULL
);
CREATE INDEX console_attempts_email ON console_sign_in_attempts(email, at);
CREATE INDEX console_attempts_ip ON console_sign_in_attempts(ip, at);

-- The console's HMAC secret (CSRF tokens, code hashes), made once per database so several
-- processes sharing a server agree without configuration.
CREATE TABLE console_secrets (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz(3) NOT NULL
);
