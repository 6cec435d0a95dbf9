// Shapes of the console HTTP API (docs/console.md, "HTTP API"); money in integer micro-yuan.

export type Outcome = string;

export interface Account {
  id: string;
  name: string;
  balanceMicros: number;
  createdAt: string;
}

export interface Identity {
  provider: string;
  subject: string;
  email: string;
  displayName: string;
  createdAt: string;
}

export interface Provider {
  id: string;
  name: string;
}

export type OperatorRole = "admin" | "support";

export interface Session {
  account: Account;
  identities: Identity[];
  /** Sees the admin pages (as an admin or as support). */
  isAdmin: boolean;
  role: OperatorRole | null;
  csrfToken: string;
}

export interface DayTotals {
  day: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costMicros: number;
}

export interface Overview {
  balanceMicros: number;
  spendTodayMicros: number;
  spendMonthMicros: number;
  days: DayTotals[];
}

export interface UsageRecord {
  requestId: string;
  keyId: string;
  model: string;
  vendor: string;
  endpoint: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  costMicros: number;
  latencyMs: number;
  stream: boolean;
  outcome: Outcome;
  errorCode: string;
  createdAt: string;
}

export interface UsagePage {
  records: UsageRecord[];
  nextCursor: string;
}

export interface ModelTotals extends Omit<DayTotals, "day"> {
  model: string;
}

export interface Statistics {
  byDay: DayTotals[];
  byModel: ModelTotals[];
  totals: Omit<DayTotals, "day">;
}

export interface LogSummary {
  requestId: string;
  model: string;
  endpoint: string;
  outcome: Outcome;
  costMicros: number;
  latencyMs: number;
  createdAt: string;
  keyId: string;
  stream: boolean;
}

export interface LogPage {
  logs: LogSummary[];
  nextCursor: string;
}

export type LogCapture = "full" | "metadata" | "off";

export interface LogDetail {
  usage: UsageRecord;
  capture: LogCapture;
  request: unknown;
  answer: unknown;
  error: string | null;
  // The bodies were cut to the deployment's size limit for one entry.
  truncated?: boolean;
}

export interface Group {
  name: string;
  description: string;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  group: string;
  status: "active" | "revoked" | "expired";
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  spendCapMicros: number | null;
  spentMicros: number;
}

export interface NewKey {
  name: string;
  group: string;
  expiresAt?: string;
  spendCapMicros?: number;
}

export type PaymentProvider = "wechat" | "alipay";
/** How an order was paid: a provider, or a prepaid code. */
export type TopUpMethod = PaymentProvider | "code";

export interface TopUpOrder {
  outTradeNo: string;
  provider: TopUpMethod;
  amountFen: number;
  state: "created" | "paid" | "closed" | "failed";
  createdAt: string;
  expiresAt: string;
  finishedAt: string | null;
}

export interface CreatedTopUp {
  order: TopUpOrder;
  payment: { qrCode: string; payUrl?: string };
}

export interface Settings {
  logCapture: LogCapture;
  identities: Identity[];
  providers: Provider[];
}

export interface AdminAccountPage {
  accounts: Account[];
  nextCursor: string;
}

/** Filters shared by usage records, their CSV export and the request logs. */
export interface RecordFilters {
  from?: string;
  to?: string;
  model?: string;
  keyId?: string;
  status?: string;
}

/** A channel as the answering router sees it (GET /api/admin/channels). */
export interface ChannelHealth {
  name: string;
  vendor: string;
  models: number;
  status: "closed" | "failing" | "open" | "half_open" | "disabled" | "keys_refused";
  consecutiveFailures: number;
  reopensInMs: number;
  disabled: boolean;
  simulated: boolean;
  // Masked keys, and the ones the vendor refused (disabled until an operator re-enables them).
  keys: { id: string; masked: string; disabled: boolean; reason: "" | "key_invalid" | "quota_exhausted" }[];
  keysExhausted: boolean;
}

export interface CatalogueGroup {
  name: string;
  description: string;
  multiplierBasisPoints: number;
  limits: { requestsPerMinute?: number; tokensPerMinute?: number; concurrentRequests?: number };
}

/** Prices in micro-yuan: per million tokens, per image, per second. */
export interface CatalogueModel {
  id: string;
  vendor: string;
  ownedBy: string;
  kind: "chat" | "embedding" | "image" | "audio" | "video";
  groups: string[];
  contextWindow: number;
  prices: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  imagePrices: { size: string; quality: string; price: number }[];
  pricePerSecond?: number;
  servable: boolean;
}

export interface CatalogueDescription {
  groups: CatalogueGroup[];
  models: CatalogueModel[];
}

/** Yuan per million tokens, exact decimal strings with the group's multiplier applied. */
export interface TokenPricing {
  prompt: string;
  completion: string;
  inputCacheRead: string;
  inputCacheWrite: string;
}

/** A model's prices for one group (router's ModelPricing). */
export interface ModelPricing {
  currency: string;
  multiplierBasisPoints: number;
  tokens: TokenPricing;
  tiers: { minPromptTokens: number; prices: TokenPricing }[];
  images: { size: string; quality: string; price: string }[];
  audioSecond?: string;
  videoSecond?: string;
}

export interface PricedModel {
  id: string;
  ownedBy: string;
  contextWindow: number;
  endpoints: string[];
  pricing: ModelPricing;
}

/** The public price list: each group with the models its keys can use, at its prices. */
export interface PriceList {
  groups: { name: string; description: string; multiplierBasisPoints: number; models: PricedModel[] }[];
}

export interface RedeemedCode {
  order: TopUpOrder;
  balanceMicros: number;
}

export interface CodeBatch {
  batchId: string;
  amountMicros: number;
  count: number;
  expiresAt: string | null;
  note: string;
  createdBy: string;
  createdAt: string;
  redeemed: number;
  revoked: number;
}

export interface CreatedCodeBatch {
  batch: CodeBatch;
  codes: string[];
  csv: string;
}

export interface PrepaidCode {
  codeId: string;
  codePrefix: string;
  state: "unused" | "redeemed" | "revoked" | "expired";
  redeemedAt: string | null;
  redeemedBy: string | null;
  revokedAt: string | null;
  outTradeNo: string | null;
}

export interface AdminOrder extends TopUpOrder {
  accountId: string;
  accountName: string | null;
  merchantId: string;
  providerTradeId: string | null;
}

export interface OrderCheck {
  result: "no_provider" | "query_failed" | "waiting" | "recorded" | "unknown_to_provider" | "closed" | "final";
  order: AdminOrder;
}

export interface OperationsOverview {
  from: string;
  to: string;
  days: { day: string; topUpMicros: number; topUps: number; spendMicros: number; requests: number }[];
  topAccounts: { accountId: string; name: string; spendMicros: number; requests: number }[];
  topModels: { model: string; spendMicros: number; requests: number }[];
  channels: { channel: string; requests: number; errors: number; errorRate: number }[];
}
