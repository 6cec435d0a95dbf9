-- Usage billed per unit (images, audio seconds, video seconds) besides tokens.
ALTER TABLE ledger.usage_records ADD COLUMN billed_units integer NOT NULL DEFAULT 0;
ALTER TABLE ledger.usage_records ADD COLUMN unit text;
