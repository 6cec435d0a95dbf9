-- When each sign-in was last used, so `pnpm gw admin grant --first` can name the person who
-- signed in last (the operator who just did) rather than whoever signed in first long ago.
ALTER TABLE ledger.sign_in_identities
  ADD COLUMN last_sign_in_at timestamptz(3) NOT NULL DEFAULT now();
UPDATE ledger.sign_in_identities SET last_sign_in_at = created_at;
CREATE INDEX sign_in_identities_last_sign_in ON ledger.sign_in_identities (last_sign_in_at DESC);
