-- Video generation tasks. See prisma/schema.prisma for the meaning of each column.
CREATE TABLE video.tasks (
  id text PRIMARY KEY,
  request_id text NOT NULL UNIQUE,
  account_id uuid NOT NULL,
  key_id uuid NOT NULL,
  model_group text NOT NULL,
  model text NOT NULL,
  vendor text NOT NULL,
  channel text NOT NULL,
  prompt text NOT NULL,
  duration_seconds integer NOT NULL CHECK (duration_seconds IN (5, 10, 15, 20)),
  size text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
  progress integer CHECK (progress BETWEEN 0 AND 100),
  error text,
  vendor_job_id text,
  worker_id text,
  lease_until timestamptz(3),
  attempts integer NOT NULL DEFAULT 0,
  idempotency_key text,
  callback_url text,
  callback_state text CHECK (callback_state IN ('pending', 'delivered', 'gave_up')),
  callback_attempts integer NOT NULL DEFAULT 0,
  callback_next_at timestamptz(3),
  public_base_url text NOT NULL,
  storage_key text,
  byte_size bigint,
  billed_seconds integer,
  created_at timestamptz(3) NOT NULL,
  started_at timestamptz(3),
  finished_at timestamptz(3),
  expires_at timestamptz(3) NOT NULL,
  -- A completed task has its file; a failed one says why; both know when they ended.
  CONSTRAINT tasks_completed_has_video CHECK (status <> 'completed' OR (storage_key IS NOT NULL AND finished_at IS NOT NULL)),
  CONSTRAINT tasks_failed_has_error CHECK (status <> 'failed' OR (error IS NOT NULL AND finished_at IS NOT NULL)),
  CONSTRAINT tasks_account_id_idempotency_key_key UNIQUE (account_id, idempotency_key)
);
CREATE INDEX tasks_status_lease_until_idx ON video.tasks (status, lease_until);
CREATE INDEX tasks_expires_at_idx ON video.tasks (expires_at);

-- The lifecycle, enforced here so no code path (or operator) can skip or reverse a state:
-- a task is born pending; pending -> processing | failed; processing -> completed | failed;
-- completed and failed are final.
CREATE FUNCTION video.enforce_task_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> 'pending' THEN
      RAISE EXCEPTION 'video task % must start pending, not %', NEW.id, NEW.status USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.status = OLD.status
     OR (OLD.status = 'pending' AND NEW.status IN ('processing', 'failed'))
     OR (OLD.status = 'processing' AND NEW.status IN ('completed', 'failed')) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'video task %: % -> % is not an allowed transition', OLD.id, OLD.status, NEW.status
    USING ERRCODE = 'check_violation';
END
$$;
CREATE TRIGGER tasks_enforce_transition
  BEFORE INSERT OR UPDATE OF status ON video.tasks
  FOR EACH ROW EXECUTE FUNCTION video.enforce_task_transition();
