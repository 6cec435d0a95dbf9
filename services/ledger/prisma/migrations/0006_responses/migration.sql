-- Stored Responses API responses, moved here from Redis: durable, and out of the Redis that
-- holds billing reservations. Keyed by account first, so another account's id never matches.
CREATE TABLE ledger.responses (
  account_id uuid NOT NULL,
  response_id text NOT NULL,
  body bytea NOT NULL,
  stored_bytes integer NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  expires_at timestamptz(3) NOT NULL,
  PRIMARY KEY (account_id, response_id)
);
CREATE INDEX responses_expires ON ledger.responses (expires_at);
