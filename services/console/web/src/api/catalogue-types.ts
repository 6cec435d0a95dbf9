// The stored catalogue as the console edits it (GET /api/admin/catalogue/stored): entries in the
// shape of infra/catalogue/models.yaml, keys masked. Only the fields the console edits are named.

// Micro-yuan per million tokens, or a base with bands above a prompt length (edited from the CLI).
export type TokenPrice = number | { base: number; tiers: { start: number; price: number }[] };

export interface TokenPrices {
  input: TokenPrice;
  output: TokenPrice;
  cache_read?: TokenPrice;
  cache_write?: TokenPrice;
}

export interface ChannelEntry {
  vendor: string;
  base_url?: string;
  api_keys?: string[];
  api_key_env?: string;
  priority: number;
  weight: number;
  models?: string[];
  model_map?: Record<string, string>;
  disabled?: boolean;
  disabled_reason?: string;
}

export interface ModelEntry {
  id: string;
  vendor: string;
  context_window: number;
  groups: string[];
  endpoints: string[];
  price?: TokenPrices;
  price_reason?: string;
  retired?: { on: string; successor: string; serve: boolean };
}

export interface GroupEntry {
  description: string;
  multiplier_basis_points: number;
  limits?: { requests_per_minute?: number; tokens_per_minute?: number; concurrent_requests?: number };
}

export interface StoredCatalogue {
  revision: number;
  catalogue: {
    groups: Record<string, GroupEntry>;
    vendors: Record<string, { owned_by: string; base_url: string }>;
    channels: Record<string, ChannelEntry>;
    models: ModelEntry[];
  } | null;
}

export interface CatalogueChangeResult {
  revision: number;
  changed: { kind: string; name: string }[];
}

export interface CatalogueChange {
  revision: number;
  actor: string;
  action: string;
  kind: string;
  name: string;
  before: unknown;
  after: unknown;
  changedAt: string;
}

export interface KeyTestResult {
  keyId: string;
  maskedKey: string;
  ok: boolean;
  latencyMs: number;
  status: number;
  answer: string;
  refusal: string;
  disabled: boolean;
}

export interface ChannelTestReport {
  channel: string;
  model: string;
  upstreamModel: string;
  keys: KeyTestResult[];
}
