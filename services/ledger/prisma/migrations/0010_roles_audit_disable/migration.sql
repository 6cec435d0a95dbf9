-- Operators' roles granted at run time, the audit log of every admin action, and what an
-- admin may change on an account: disabled (its keys refused), a default group for its keys.

-- One role per grantee: an account id, or a sign-in identity `provider:subject` (granted
-- before that person first signs in).
CREATE TABLE ledger.admin_roles (
  grantee text PRIMARY KEY CHECK (length(grantee) BETWEEN 3 AND 300),
  role text NOT NULL CHECK (role IN ('admin', 'support')),
  granted_by text NOT NULL,
  granted_at timestamptz(3) NOT NULL DEFAULT now()
);

-- Written in the transaction of the change it describes; never updated or deleted.
CREATE TABLE ledger.audit_log (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  -- Who: the operator's account (absent for the CLI's admin token), the sign-in or `cli`, the role acted in.
  actor_account_id uuid,
  actor text NOT NULL,
  actor_role text NOT NULL,
  -- What: a dotted action name, the account it concerns, the object (a grantee, a code, an order).
  action text NOT NULL CHECK (action ~ '^[a-z_]+(\.[a-z_]+)+$'),
  account_id uuid,
  target text,
  before jsonb,
  after jsonb
);
CREATE INDEX audit_log_at ON ledger.audit_log (at DESC, id DESC);
CREATE INDEX audit_log_account ON ledger.audit_log (account_id, at DESC);
CREATE INDEX audit_log_actor ON ledger.audit_log (actor, at DESC);

CREATE FUNCTION ledger.audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only' USING ERRCODE = 'check_violation';
END $$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON ledger.audit_log
  FOR EACH ROW EXECUTE FUNCTION ledger.audit_log_append_only();

ALTER TABLE ledger.accounts
  ADD COLUMN disabled_at timestamptz(3),
  ADD COLUMN default_group text REFERENCES ledger.model_groups (name);
