-- Prompt caching and reasoning in usage records: of prompt_tokens, those read from and written
-- to the vendor's prompt cache (each billed at its own catalogue rate); of completion_tokens,
-- those spent on reasoning (billed as output).

ALTER TABLE ledger.usage_records
  ADD COLUMN cached_tokens integer NOT NULL DEFAULT 0 CHECK (cached_tokens >= 0),
  ADD COLUMN cache_creation_tokens integer NOT NULL DEFAULT 0 CHECK (cache_creation_tokens >= 0),
  ADD COLUMN reasoning_tokens integer NOT NULL DEFAULT 0 CHECK (reasoning_tokens >= 0);

-- The running per-day statistics carry the same three counts.
ALTER TABLE ledger.daily_usage
  ADD COLUMN cached_tokens bigint NOT NULL DEFAULT 0,
  ADD COLUMN cache_creation_tokens bigint NOT NULL DEFAULT 0,
  ADD COLUMN reasoning_tokens bigint NOT NULL DEFAULT 0;
