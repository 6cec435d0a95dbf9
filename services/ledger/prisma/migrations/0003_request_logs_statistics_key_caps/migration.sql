-- Request logs, per-day statistics, per-account log capture and per-key spending caps.

-- NULL follows the deployment's default capture level.
ALTER TABLE ledger.accounts ADD COLUMN log_capture text
  CHECK (log_capture IN ('full', 'metadata', 'off'));

-- NULL means no cap; spent_micros is the sum of the key's usage costs, kept in the usage transaction.
ALTER TABLE ledger.api_keys ADD COLUMN spend_cap_micros bigint CHECK (spend_cap_micros >= 0);
ALTER TABLE ledger.api_keys ADD COLUMN spent_micros bigint NOT NULL DEFAULT 0;

-- One row per logged request, next to its usage record (same request_id). Bodies only at capture 'full'.
CREATE TABLE ledger.request_logs (
  request_id    text PRIMARY KEY,
  account_id    uuid NOT NULL,
  capture       text NOT NULL CHECK (capture IN ('full', 'metadata')),
  request_body  text,
  response_body text,
  truncated     boolean NOT NULL DEFAULT false,
  error_message text,
  created_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX request_logs_account_created ON ledger.request_logs (account_id, created_at DESC);
-- Retention deletes the oldest rows in batches.
CREATE INDEX request_logs_created ON ledger.request_logs (created_at);

-- Running totals per account, UTC day and model, added to in the usage transaction.
CREATE TABLE ledger.daily_usage (
  account_id        uuid NOT NULL,
  day               date NOT NULL,
  model             text NOT NULL,
  requests          bigint NOT NULL DEFAULT 0,
  prompt_tokens     bigint NOT NULL DEFAULT 0,
  completion_tokens bigint NOT NULL DEFAULT 0,
  cost_micros       bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, day, model)
);

CREATE INDEX usage_records_account_model_created ON ledger.usage_records (account_id, model, created_at);
CREATE INDEX usage_records_key_created ON ledger.usage_records (key_id, created_at);
