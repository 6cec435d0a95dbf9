-- Bumped with every balance change, so Redis copies written out of order (several ledger
-- replicas, a load racing a commit) keep the newest balance.
ALTER TABLE ledger.accounts ADD COLUMN balance_version bigint NOT NULL DEFAULT 0;
