-- Top-up orders, the payment notifications that settle them, operators' credit adjustments,
-- and sign-in identities. The order's state machine lives here, not only in code: whatever
-- writes to this table, an order is paid at most once and never leaves a final state.

CREATE TABLE ledger.topup_orders (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Ours, sent to the provider: URL-safe and at most 32 characters (WeChat Pay's limit).
  out_trade_no text NOT NULL UNIQUE CHECK (out_trade_no ~ '^[A-Za-z0-9_-]{6,32}$'),
  account_id uuid NOT NULL REFERENCES ledger.accounts (id),
  provider text NOT NULL CHECK (provider IN ('wechat_pay', 'alipay')),
  -- The WeChat Pay mchid or Alipay app_id the order was placed with.
  merchant_id text NOT NULL CHECK (length(merchant_id) BETWEEN 1 AND 64),
  -- At least 1 yuan, in whole fen (10,000 micros).
  amount_micros bigint NOT NULL CHECK (amount_micros >= 1000000 AND amount_micros % 10000 = 0),
  currency text NOT NULL DEFAULT 'CNY' CHECK (currency = 'CNY'),
  state text NOT NULL DEFAULT 'created' CHECK (state IN ('created', 'paid', 'closed', 'failed')),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  expires_at timestamptz(3) NOT NULL,
  finished_at timestamptz(3),
  provider_trade_id text,
  credit_id uuid UNIQUE REFERENCES ledger.credits (id),
  CHECK (expires_at > created_at),
  CHECK ((state = 'created') = (finished_at IS NULL)),
  CHECK ((state = 'paid') = (provider_trade_id IS NOT NULL AND credit_id IS NOT NULL))
);
CREATE INDEX topup_orders_account_created ON ledger.topup_orders (account_id, created_at DESC, id DESC);
CREATE INDEX topup_orders_open ON ledger.topup_orders (created_at) WHERE state = 'created';

-- created → paid | closed | failed, and nothing else: an order is born created, only a
-- created order changes, and what identifies the order and its price never changes.
CREATE FUNCTION ledger.topup_order_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.state <> 'created' THEN
      RAISE EXCEPTION 'a top-up order is created in state created, not %', NEW.state USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF OLD.state <> 'created' THEN
    RAISE EXCEPTION 'top-up order % is %, a final state', OLD.out_trade_no, OLD.state USING ERRCODE = 'check_violation';
  END IF;
  IF (NEW.id, NEW.out_trade_no, NEW.account_id, NEW.provider, NEW.merchant_id, NEW.amount_micros, NEW.currency,
      NEW.created_at, NEW.expires_at)
     IS DISTINCT FROM
     (OLD.id, OLD.out_trade_no, OLD.account_id, OLD.provider, OLD.merchant_id, OLD.amount_micros, OLD.currency,
      OLD.created_at, OLD.expires_at) THEN
    RAISE EXCEPTION 'top-up order % may only change state', OLD.out_trade_no USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER topup_order_transition BEFORE INSERT OR UPDATE ON ledger.topup_orders
  FOR EACH ROW EXECUTE FUNCTION ledger.topup_order_transition();

-- Orders are evidence of money moving: never deleted.
CREATE FUNCTION ledger.refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are never deleted', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER topup_orders_keep BEFORE DELETE ON ledger.topup_orders
  FOR EACH ROW EXECUTE FUNCTION ledger.refuse_delete();

-- Every notification as received (and every provider query answer the reconcile job
-- reports), kept for audit whatever became of it.
CREATE TABLE ledger.payment_notifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  provider text NOT NULL CHECK (provider IN ('wechat_pay', 'alipay')),
  headers jsonb NOT NULL,
  body text NOT NULL,
  -- Whether the console verified the provider's signature.
  signature_verified boolean NOT NULL,
  -- The verified facts the console read from it (null when it could not read any).
  facts jsonb,
  order_id uuid REFERENCES ledger.topup_orders (id),
  -- credited: it paid the order; duplicate: the order was already paid by this trade;
  -- pending: the trade is not finished; closed: it closed the order; rejected: nothing changed.
  outcome text NOT NULL CHECK (outcome IN ('credited', 'duplicate', 'pending', 'closed', 'rejected')),
  reason text,
  received_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX payment_notifications_order ON ledger.payment_notifications (order_id);
CREATE INDEX payment_notifications_received ON ledger.payment_notifications (received_at);
CREATE TRIGGER payment_notifications_keep BEFORE DELETE ON ledger.payment_notifications
  FOR EACH ROW EXECUTE FUNCTION ledger.refuse_delete();

-- An operator's change to a balance, with who made it and why; the money itself is a credit,
-- which may now be negative (an operator taking back a mistaken credit).
ALTER TABLE ledger.credits DROP CONSTRAINT credits_amount_positive;
ALTER TABLE ledger.credits ADD CONSTRAINT credits_amount_nonzero CHECK (amount_micros <> 0);
CREATE TABLE ledger.credit_adjustments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  credit_id uuid NOT NULL UNIQUE REFERENCES ledger.credits (id),
  account_id uuid NOT NULL REFERENCES ledger.accounts (id),
  amount_micros bigint NOT NULL CHECK (amount_micros <> 0),
  reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
  actor text NOT NULL CHECK (length(actor) BETWEEN 1 AND 255),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX credit_adjustments_account ON ledger.credit_adjustments (account_id, created_at DESC);
CREATE TRIGGER credit_adjustments_keep BEFORE DELETE ON ledger.credit_adjustments
  FOR EACH ROW EXECUTE FUNCTION ledger.refuse_delete();

-- A third-party sign-in (GitHub, an OpenID provider) and the account it reaches.
CREATE TABLE ledger.sign_in_identities (
  provider text NOT NULL CHECK (provider ~ '^[a-z0-9][a-z0-9_.:-]{0,63}$'),
  subject text NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
  account_id uuid NOT NULL REFERENCES ledger.accounts (id),
  email text,
  display_name text,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, subject)
);
CREATE INDEX sign_in_identities_account ON ledger.sign_in_identities (account_id);
