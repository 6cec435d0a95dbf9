-- Request logs hold people's prompts: only keys marked for it may read them. Keys made before
-- this keep the access every key had; new keys are made without it unless asked.
ALTER TABLE ledger.api_keys ADD COLUMN can_read_logs boolean NOT NULL DEFAULT true;
ALTER TABLE ledger.api_keys ALTER COLUMN can_read_logs SET DEFAULT false;
