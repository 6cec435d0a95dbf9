-- The ledger's first schema, written to match prisma/schema.prisma.
CREATE SCHEMA IF NOT EXISTS ledger;

CREATE TABLE ledger.accounts (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL,
  balance_micros bigint NOT NULL DEFAULT 0,
  created_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT accounts_pkey PRIMARY KEY (id)
);

CREATE TABLE ledger.model_groups (
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  multiplier_basis_points integer NOT NULL DEFAULT 10000,
  CONSTRAINT model_groups_pkey PRIMARY KEY (name),
  CONSTRAINT model_groups_multiplier_positive CHECK (multiplier_basis_points > 0)
);

CREATE TABLE ledger.api_keys (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL,
  name text NOT NULL,
  model_group text NOT NULL,
  key_hash text NOT NULL,
  key_prefix text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  expires_at timestamptz(3),
  revoked_at timestamptz(3),
  last_used_at timestamptz(3),
  CONSTRAINT api_keys_pkey PRIMARY KEY (id),
  CONSTRAINT api_keys_account_id_fkey FOREIGN KEY (account_id) REFERENCES ledger.accounts (id),
  CONSTRAINT api_keys_model_group_fkey FOREIGN KEY (model_group) REFERENCES ledger.model_groups (name)
);
CREATE UNIQUE INDEX api_keys_key_hash_key ON ledger.api_keys (key_hash);
CREATE INDEX api_keys_account_id_idx ON ledger.api_keys (account_id);

CREATE TABLE ledger.usage_records (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  request_id text NOT NULL,
  account_id uuid NOT NULL,
  key_id uuid NOT NULL,
  model text NOT NULL,
  vendor text NOT NULL,
  channel text NOT NULL,
  endpoint text NOT NULL,
  prompt_tokens integer NOT NULL,
  completion_tokens integer NOT NULL,
  total_tokens integer NOT NULL,
  estimated boolean NOT NULL,
  outcome text NOT NULL,
  error_code text,
  cost_micros bigint NOT NULL,
  latency_ms integer NOT NULL,
  stream boolean NOT NULL,
  started_at timestamptz(3) NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  trace_id text,
  CONSTRAINT usage_records_pkey PRIMARY KEY (id)
);
-- The exactly-once guarantee: a second event for the same request inserts nothing.
CREATE UNIQUE INDEX usage_records_request_id_key ON ledger.usage_records (request_id);
CREATE INDEX usage_records_account_id_created_at_idx ON ledger.usage_records (account_id, created_at);

CREATE TABLE ledger.credits (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL,
  amount_micros bigint NOT NULL,
  idempotency_key text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT credits_pkey PRIMARY KEY (id),
  CONSTRAINT credits_account_id_fkey FOREIGN KEY (account_id) REFERENCES ledger.accounts (id),
  CONSTRAINT credits_amount_positive CHECK (amount_micros > 0)
);
CREATE UNIQUE INDEX credits_idempotency_key_key ON ledger.credits (idempotency_key);
CREATE INDEX credits_account_id_idx ON ledger.credits (account_id);

INSERT INTO ledger.model_groups (name, description, multiplier_basis_points) VALUES
  ('default', 'Every model at catalogue price', 10000),
  ('premium', 'Premium models at 1.5x catalogue price', 15000);
