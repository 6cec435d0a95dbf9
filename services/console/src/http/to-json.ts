import {
  type Account,
  type ApiKey,
  ApiKeyStatus,
  PaymentProvider,
  type RequestLog,
  type SignInIdentity,
  type TopUpOrder,
  TopUpOrderState,
  type UsageRecord,
} from "@gateway/proto/ledger/v1/console";

// Ledger's times are Unix milliseconds with 0 for none; the contract's are ISO strings or null.
export const isoTime = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : null);

export const accountJson = (account: Account) => ({
  id: account.accountId,
  name: account.name,
  balanceMicros: account.balanceMicros,
  createdAt: isoTime(account.createdAtMs),
});

export const identityJson = (identity: SignInIdentity) => ({
  provider: identity.provider,
  subject: identity.subject,
  email: identity.email ?? null,
  displayName: identity.displayName ?? null,
  createdAt: isoTime(identity.createdAtMs),
});

const keyStatuses: Partial<Record<ApiKeyStatus, string>> = {
  [ApiKeyStatus.API_KEY_STATUS_ACTIVE]: "active",
  [ApiKeyStatus.API_KEY_STATUS_REVOKED]: "revoked",
  [ApiKeyStatus.API_KEY_STATUS_EXPIRED]: "expired",
};

export const keyJson = (key: ApiKey) => ({
  id: key.keyId,
  name: key.name,
  prefix: key.keyPrefix,
  group: key.group,
  status: keyStatuses[key.status] ?? "revoked",
  createdAt: isoTime(key.createdAtMs),
  expiresAt: isoTime(key.expiresAtMs),
  revokedAt: isoTime(key.revokedAtMs),
  lastUsedAt: isoTime(key.lastUsedAtMs),
  spendCapMicros: key.spendCapMicros ?? null,
  spentMicros: key.spentMicros,
});

export const usageJson = (record: UsageRecord) => ({
  requestId: record.requestId,
  keyId: record.keyId,
  model: record.model,
  vendor: record.vendor,
  endpoint: record.endpoint,
  promptTokens: record.promptTokens,
  completionTokens: record.completionTokens,
  totalTokens: record.totalTokens,
  estimated: record.estimated,
  costMicros: record.costMicros,
  latencyMs: record.latencyMs,
  stream: record.stream,
  outcome: record.outcome,
  errorCode: record.errorCode ?? null,
  createdAt: isoTime(record.createdAtMs),
});

export const logSummaryJson = (log: RequestLog) => {
  const usage = log.usage;
  return {
    requestId: usage?.requestId ?? "",
    model: usage?.model ?? "",
    endpoint: usage?.endpoint ?? "",
    outcome: usage?.outcome ?? "",
    costMicros: usage?.costMicros ?? 0,
    latencyMs: usage?.latencyMs ?? 0,
    createdAt: isoTime(usage?.createdAtMs ?? 0),
    keyId: usage?.keyId ?? "",
    stream: usage?.stream ?? false,
  };
};

// A body cut at the capture limit is no longer JSON: the viewer then gets its text.
function storedBody(text: string | undefined): unknown {
  if (text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const logDetailJson = (log: RequestLog) => ({
  usage: log.usage ? usageJson(log.usage) : null,
  capture: log.capture,
  request: storedBody(log.requestBody),
  answer: storedBody(log.responseBody),
  error: log.errorMessage ?? null,
  truncated: log.truncated,
});

export const paymentProviders = {
  wechat: PaymentProvider.PAYMENT_PROVIDER_WECHAT_PAY,
  alipay: PaymentProvider.PAYMENT_PROVIDER_ALIPAY,
} as const;
export type PaymentProviderName = keyof typeof paymentProviders;

const providerNames: Partial<Record<PaymentProvider, PaymentProviderName>> = {
  [PaymentProvider.PAYMENT_PROVIDER_WECHAT_PAY]: "wechat",
  [PaymentProvider.PAYMENT_PROVIDER_ALIPAY]: "alipay",
};

const orderStates: Partial<Record<TopUpOrderState, string>> = {
  [TopUpOrderState.TOP_UP_ORDER_STATE_CREATED]: "created",
  [TopUpOrderState.TOP_UP_ORDER_STATE_PAID]: "paid",
  [TopUpOrderState.TOP_UP_ORDER_STATE_CLOSED]: "closed",
  [TopUpOrderState.TOP_UP_ORDER_STATE_FAILED]: "failed",
};

export const providerNameOf = (provider: PaymentProvider) => providerNames[provider];

// How an order was paid, as the pages name it: a provider, or a prepaid code.
const methodNames: Partial<Record<PaymentProvider, PaymentProviderName | "code">> = {
  ...providerNames,
  [PaymentProvider.PAYMENT_PROVIDER_PREPAID_CODE]: "code",
};

export const orderJson = (order: TopUpOrder) => ({
  outTradeNo: order.outTradeNo,
  provider: methodNames[order.provider] ?? "unknown",
  amountFen: order.amountFen,
  amountMicros: order.amountMicros,
  state: orderStates[order.state] ?? "unknown",
  createdAt: isoTime(order.createdAtMs),
  expiresAt: isoTime(order.expiresAtMs),
  finishedAt: isoTime(order.finishedAtMs),
});
