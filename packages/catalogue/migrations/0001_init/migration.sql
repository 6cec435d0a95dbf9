-- The catalogue's store: one table per kind of object, each entry as the catalogue schema
-- (packages/catalogue/src/catalogue-schema.ts) validated it. Router owns this schema.
CREATE SCHEMA IF NOT EXISTS catalogue;

-- One row: the revision in force (bumped by every committed change) and the fingerprint of the
-- catalogue file last imported, so a router started on a changed ConfigMap imports it.
CREATE TABLE catalogue.state (
  singleton boolean NOT NULL DEFAULT true,
  revision bigint NOT NULL DEFAULT 0,
  file_sha256 text,
  CONSTRAINT state_pkey PRIMARY KEY (singleton),
  CONSTRAINT state_singleton CHECK (singleton)
);
INSERT INTO catalogue.state (singleton) VALUES (true);

-- The catalogue's settings outside any object (the exchange rate of the price dataset's dollars).
CREATE TABLE catalogue.settings (
  name text NOT NULL,
  value jsonb NOT NULL,
  CONSTRAINT settings_pkey PRIMARY KEY (name)
);

CREATE TABLE catalogue.groups (
  name text NOT NULL,
  entry jsonb NOT NULL,
  CONSTRAINT groups_pkey PRIMARY KEY (name)
);

CREATE TABLE catalogue.vendors (
  name text NOT NULL,
  entry jsonb NOT NULL,
  CONSTRAINT vendors_pkey PRIMARY KEY (name)
);

-- The entry holds everything but the channel's API keys.
CREATE TABLE catalogue.channels (
  name text NOT NULL,
  entry jsonb NOT NULL,
  CONSTRAINT channels_pkey PRIMARY KEY (name)
);

-- A channel's API keys, AES-256-GCM under CATALOGUE_ENCRYPTION_KEY (nonce, tag and ciphertext
-- in `sealed`); `masked` is all that is ever shown again.
CREATE TABLE catalogue.channel_keys (
  channel text NOT NULL,
  position integer NOT NULL,
  sealed bytea NOT NULL,
  masked text NOT NULL,
  CONSTRAINT channel_keys_pkey PRIMARY KEY (channel, position),
  CONSTRAINT channel_keys_channel_fkey FOREIGN KEY (channel) REFERENCES catalogue.channels (name) ON DELETE CASCADE
);

-- `position` keeps the order of the file the models came from (exports list them the same way).
CREATE TABLE catalogue.models (
  id text NOT NULL,
  position integer NOT NULL,
  entry jsonb NOT NULL,
  CONSTRAINT models_pkey PRIMARY KEY (id)
);

-- Who changed what, when, with the object before and after (keys masked).
CREATE TABLE catalogue.changes (
  id bigserial NOT NULL,
  revision bigint NOT NULL,
  changed_at timestamptz(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  actor text NOT NULL,
  action text NOT NULL,
  kind text NOT NULL,
  name text NOT NULL,
  before jsonb,
  after jsonb,
  CONSTRAINT changes_pkey PRIMARY KEY (id)
);
CREATE INDEX changes_revision_idx ON catalogue.changes (revision);
