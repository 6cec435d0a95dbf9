-- Prepaid codes (new-api's redemption codes): an operator makes a batch of codes worth a
-- fixed amount each; a customer redeems one, and its credit is a top-up order born paid
-- (provider 'prepaid_code'), so it is listed with the account's other top-ups. Only the
-- SHA-256 of a code is kept: the clear codes are handed out once, when the batch is made.

CREATE TABLE ledger.prepaid_code_batches (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Whole fen, at least 1 yuan, like a top-up order.
  amount_micros bigint NOT NULL CHECK (amount_micros >= 1000000 AND amount_micros % 10000 = 0),
  code_count integer NOT NULL CHECK (code_count BETWEEN 1 AND 1000),
  expires_at timestamptz(3),
  note text NOT NULL DEFAULT '' CHECK (length(note) <= 500),
  created_by text NOT NULL CHECK (length(created_by) BETWEEN 1 AND 255),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX prepaid_code_batches_created ON ledger.prepaid_code_batches (created_at DESC, id DESC);

CREATE TABLE ledger.prepaid_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  batch_id uuid NOT NULL REFERENCES ledger.prepaid_code_batches (id),
  code_hash text NOT NULL UNIQUE CHECK (code_hash ~ '^[0-9a-f]{64}$'),
  code_prefix text NOT NULL,
  redeemed_at timestamptz(3),
  redeemed_by uuid REFERENCES ledger.accounts (id),
  order_id uuid UNIQUE REFERENCES ledger.topup_orders (id),
  revoked_at timestamptz(3),
  CHECK ((redeemed_at IS NULL) = (redeemed_by IS NULL)),
  CHECK (redeemed_at IS NULL OR revoked_at IS NULL)
);
CREATE INDEX prepaid_codes_batch ON ledger.prepaid_codes (batch_id);

-- A code is redeemed or revoked once, and then stays so.
CREATE FUNCTION ledger.prepaid_code_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (OLD.redeemed_at IS NOT NULL AND NEW.redeemed_at IS DISTINCT FROM OLD.redeemed_at)
     OR (OLD.revoked_at IS NOT NULL AND NEW.revoked_at IS DISTINCT FROM OLD.revoked_at)
     OR (NEW.id, NEW.batch_id, NEW.code_hash) IS DISTINCT FROM (OLD.id, OLD.batch_id, OLD.code_hash) THEN
    RAISE EXCEPTION 'prepaid code % is already used or revoked', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER prepaid_code_transition BEFORE UPDATE ON ledger.prepaid_codes
  FOR EACH ROW EXECUTE FUNCTION ledger.prepaid_code_transition();
CREATE TRIGGER prepaid_codes_keep BEFORE DELETE ON ledger.prepaid_codes
  FOR EACH ROW EXECUTE FUNCTION ledger.refuse_delete();
CREATE TRIGGER prepaid_code_batches_keep BEFORE DELETE ON ledger.prepaid_code_batches
  FOR EACH ROW EXECUTE FUNCTION ledger.refuse_delete();

ALTER TABLE ledger.topup_orders DROP CONSTRAINT topup_orders_provider_check;
ALTER TABLE ledger.topup_orders ADD CONSTRAINT topup_orders_provider_check
  CHECK (provider IN ('wechat_pay', 'alipay', 'prepaid_code'));

-- The operators' order list pages through every account's orders, newest first.
CREATE INDEX topup_orders_created ON ledger.topup_orders (created_at DESC, id DESC);
-- The overview's channel error rates read a window of usage records across accounts.
CREATE INDEX usage_records_created ON ledger.usage_records (created_at);
