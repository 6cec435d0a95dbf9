/**
 * Records one batch of priced usage rows in ONE statement (so one round trip and its own
 * transaction). $1 is a JSON array of rows; the statement:
 * - inserts the rows whose request_id is new (ON CONFLICT DO NOTHING: exactly once), in
 *   request_id order, so two batches in flight that hold copies of the same events wait for
 *   each other in one order instead of deadlocking;
 * - then locks the accounts of the inserted rows in id order (the scalar subqueries on
 *   `locked` are evaluated once, before the statements that read them touch a row), so
 *   replicas and batches in flight billing the same accounts queue behind each other for
 *   the short per-account part while their inserts run side by side;
 * - for exactly the inserted rows, debits each account once, adds to the daily statistics
 *   and to each key's spending, and stores the request logs the rows carry.
 * It answers one row per inserted request id (kind 'inserted'), per debited account
 * ('balance': balance and balance_version after the debit) and per charged key that has a
 * spending cap ('spent': what the key has spent in all).
 */
export const recordUsageBatchSql = `
WITH batch AS (
  SELECT * FROM json_to_recordset($1::json) AS row(
    request_id text, account_id uuid, key_id uuid, model text, vendor text, channel text, endpoint text,
    prompt_tokens integer, completion_tokens integer, total_tokens integer,
    cached_tokens integer, cache_creation_tokens integer, reasoning_tokens integer, billed_units integer, unit text,
    estimated boolean, outcome text, error_code text, cost_micros bigint, latency_ms integer, stream boolean,
    started_at timestamptz, trace_id text,
    log_capture text, request_body text, response_body text, truncated boolean, error_message text)
),
inserted AS (
  INSERT INTO ledger.usage_records (
    request_id, account_id, key_id, model, vendor, channel, endpoint,
    prompt_tokens, completion_tokens, total_tokens, cached_tokens, cache_creation_tokens, reasoning_tokens,
    billed_units, unit, estimated, outcome, error_code, cost_micros, latency_ms, stream, started_at, trace_id)
  SELECT
    request_id, account_id, key_id, model, vendor, channel, endpoint,
    prompt_tokens, completion_tokens, total_tokens, cached_tokens, cache_creation_tokens, reasoning_tokens,
    billed_units, unit, estimated, outcome, error_code, cost_micros, latency_ms, stream, started_at, trace_id
  FROM batch
  ORDER BY request_id
  ON CONFLICT (request_id) DO NOTHING
  RETURNING request_id, account_id, key_id, model, prompt_tokens, completion_tokens,
            cached_tokens, cache_creation_tokens, reasoning_tokens, cost_micros, started_at
),
locked AS MATERIALIZED (
  SELECT id FROM ledger.accounts WHERE id IN (SELECT account_id FROM inserted) ORDER BY id FOR UPDATE
),
debited AS (
  UPDATE ledger.accounts AS account
  SET balance_micros = account.balance_micros - debit.amount, balance_version = account.balance_version + 1
  FROM (SELECT account_id, sum(cost_micros)::bigint AS amount FROM inserted GROUP BY account_id) AS debit
  WHERE account.id = debit.account_id AND (SELECT count(*) FROM locked) >= 0
  RETURNING account.id, account.balance_micros, account.balance_version
),
daily AS (
  INSERT INTO ledger.daily_usage AS daily (
    account_id, day, model, requests, prompt_tokens, completion_tokens,
    cached_tokens, cache_creation_tokens, reasoning_tokens, cost_micros)
  SELECT account_id, (started_at AT TIME ZONE 'UTC')::date, model,
         count(*), sum(prompt_tokens), sum(completion_tokens),
         sum(cached_tokens), sum(cache_creation_tokens), sum(reasoning_tokens), sum(cost_micros)
  FROM inserted WHERE (SELECT count(*) FROM locked) >= 0
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (account_id, day, model) DO UPDATE SET
    requests = daily.requests + EXCLUDED.requests,
    prompt_tokens = daily.prompt_tokens + EXCLUDED.prompt_tokens,
    completion_tokens = daily.completion_tokens + EXCLUDED.completion_tokens,
    cached_tokens = daily.cached_tokens + EXCLUDED.cached_tokens,
    cache_creation_tokens = daily.cache_creation_tokens + EXCLUDED.cache_creation_tokens,
    reasoning_tokens = daily.reasoning_tokens + EXCLUDED.reasoning_tokens,
    cost_micros = daily.cost_micros + EXCLUDED.cost_micros
),
charged AS (
  UPDATE ledger.api_keys AS key
  SET spent_micros = key.spent_micros + charge.amount,
      last_used_at = GREATEST(key.last_used_at, charge.used_at)
  FROM (SELECT key_id, sum(cost_micros)::bigint AS amount, max(started_at) AS used_at FROM inserted GROUP BY key_id) AS charge
  WHERE key.id = charge.key_id AND (SELECT count(*) FROM locked) >= 0
  RETURNING key.id, key.spent_micros, key.spend_cap_micros IS NOT NULL AS capped
),
logged AS (
  INSERT INTO ledger.request_logs (
    request_id, account_id, capture, request_body, response_body, truncated, error_message, created_at)
  SELECT batch.request_id, batch.account_id, batch.log_capture, batch.request_body, batch.response_body,
         batch.truncated, batch.error_message, batch.started_at
  FROM batch JOIN inserted USING (request_id)
  WHERE batch.log_capture IS NOT NULL
  ON CONFLICT (request_id) DO NOTHING
)
SELECT 'inserted' AS kind, request_id AS id, NULL::bigint AS amount, NULL::bigint AS version FROM inserted
UNION ALL SELECT 'balance', id::text, balance_micros, balance_version FROM debited
UNION ALL SELECT 'spent', id::text, spent_micros, NULL FROM charged WHERE capped`;

/** The model group multiplier of each of the given keys. */
export const keyMultipliersSql = `
SELECT key.id, model_group.multiplier_basis_points
FROM ledger.api_keys AS key JOIN ledger.model_groups AS model_group ON model_group.name = key.model_group
WHERE key.id = ANY($1::uuid[])`;
