import {
  type Account as AccountMessage,
  type ApiKey as ApiKeyMessage,
  ApiKeyStatus,
  NotificationOutcome,
  PaymentProvider,
  type RequestLog as RequestLogMessage,
  type SignInIdentity as SignInIdentityMessage,
  type StatisticsRow,
  type TopUpOrder as TopUpOrderMessage,
  TopUpOrderState,
  type UsageRecord as UsageRecordMessage,
} from "@gateway/proto/ledger/v1/console";
import { KeyStatus } from "@gateway/proto/ledger/v1/ledger";
import type { UsageCounts } from "../account-api/read-statistics.js";
import type {
  Account,
  ApiKey,
  AuditEntry,
  RequestLog,
  SignInIdentity,
  TopUpOrder,
  UsageRecord,
} from "../generated/prisma/client.js";
import { keyStatusAnswer } from "../keys/resolve-key.js";
import {
  MICROS_PER_FEN,
  type PaymentProviderName,
  type TopUpMethodName,
  type TopUpOrderStateName,
} from "../topups/payment-provider.js";
import type { NotificationOutcome as Outcome } from "../topups/record-payment-notification.js";

// Ledger rows as the console's messages: money in micro-yuan, times in Unix ms (0 = none).

const ms = (date: Date | null) => date?.getTime() ?? 0;

export const PROVIDER_MESSAGES: Record<PaymentProviderName, PaymentProvider> = {
  wechat_pay: PaymentProvider.PAYMENT_PROVIDER_WECHAT_PAY,
  alipay: PaymentProvider.PAYMENT_PROVIDER_ALIPAY,
};

const METHOD_MESSAGES: Record<TopUpMethodName, PaymentProvider> = {
  ...PROVIDER_MESSAGES,
  prepaid_code: PaymentProvider.PAYMENT_PROVIDER_PREPAID_CODE,
};

const STATE_MESSAGES: Record<TopUpOrderStateName, TopUpOrderState> = {
  created: TopUpOrderState.TOP_UP_ORDER_STATE_CREATED,
  paid: TopUpOrderState.TOP_UP_ORDER_STATE_PAID,
  closed: TopUpOrderState.TOP_UP_ORDER_STATE_CLOSED,
  failed: TopUpOrderState.TOP_UP_ORDER_STATE_FAILED,
};

const KEY_STATUS_MESSAGES: Partial<Record<KeyStatus, ApiKeyStatus>> = {
  [KeyStatus.KEY_STATUS_ACTIVE]: ApiKeyStatus.API_KEY_STATUS_ACTIVE,
  [KeyStatus.KEY_STATUS_REVOKED]: ApiKeyStatus.API_KEY_STATUS_REVOKED,
  [KeyStatus.KEY_STATUS_EXPIRED]: ApiKeyStatus.API_KEY_STATUS_EXPIRED,
};

export const OUTCOME_MESSAGES: Record<Outcome, NotificationOutcome> = {
  credited: NotificationOutcome.NOTIFICATION_OUTCOME_CREDITED,
  duplicate: NotificationOutcome.NOTIFICATION_OUTCOME_DUPLICATE,
  pending: NotificationOutcome.NOTIFICATION_OUTCOME_PENDING,
  closed: NotificationOutcome.NOTIFICATION_OUTCOME_CLOSED,
  rejected: NotificationOutcome.NOTIFICATION_OUTCOME_REJECTED,
};

export const accountMessage = (account: Account): AccountMessage => ({
  accountId: account.id,
  name: account.name,
  balanceMicros: Number(account.balanceMicros),
  createdAtMs: ms(account.createdAt),
});

export const settingsMessage = (account: { id: string; logCapture: string | null }) => ({
  accountId: account.id,
  logCapture: account.logCapture ?? undefined,
});

export const identityMessage = (identity: SignInIdentity): SignInIdentityMessage => ({
  provider: identity.provider,
  subject: identity.subject,
  accountId: identity.accountId,
  email: identity.email ?? undefined,
  displayName: identity.displayName ?? undefined,
  createdAtMs: ms(identity.createdAt),
});

export const topUpOrderMessage = (order: TopUpOrder): TopUpOrderMessage => ({
  outTradeNo: order.outTradeNo,
  accountId: order.accountId,
  provider: METHOD_MESSAGES[order.provider as TopUpMethodName],
  merchantId: order.merchantId,
  amountFen: Number(order.amountMicros / MICROS_PER_FEN),
  amountMicros: Number(order.amountMicros),
  currency: order.currency,
  state: STATE_MESSAGES[order.state as TopUpOrderStateName],
  createdAtMs: ms(order.createdAt),
  expiresAtMs: ms(order.expiresAt),
  finishedAtMs: ms(order.finishedAt),
  providerTradeId: order.providerTradeId ?? undefined,
});

export const keyMessage = (key: Omit<ApiKey, "keyHash">): ApiKeyMessage => ({
  keyId: key.id,
  accountId: key.accountId,
  name: key.name,
  keyPrefix: key.keyPrefix,
  group: key.modelGroup,
  status: KEY_STATUS_MESSAGES[keyStatusAnswer(key, new Date()).status] ?? ApiKeyStatus.API_KEY_STATUS_UNSPECIFIED,
  createdAtMs: ms(key.createdAt),
  expiresAtMs: ms(key.expiresAt),
  revokedAtMs: ms(key.revokedAt),
  lastUsedAtMs: ms(key.lastUsedAt),
  spendCapMicros: key.spendCapMicros === null ? undefined : Number(key.spendCapMicros),
  spentMicros: Number(key.spentMicros),
  readLogs: key.canReadLogs,
});

export const usageMessage = (record: UsageRecord): UsageRecordMessage => ({
  requestId: record.requestId,
  keyId: record.keyId,
  model: record.model,
  vendor: record.vendor,
  channel: record.channel,
  endpoint: record.endpoint,
  promptTokens: record.promptTokens,
  completionTokens: record.completionTokens,
  totalTokens: record.totalTokens,
  cachedTokens: record.cachedTokens,
  cacheCreationTokens: record.cacheCreationTokens,
  reasoningTokens: record.reasoningTokens,
  estimated: record.estimated,
  outcome: record.outcome,
  errorCode: record.errorCode ?? undefined,
  costMicros: Number(record.costMicros),
  latencyMs: record.latencyMs,
  stream: record.stream,
  startedAtMs: ms(record.startedAt),
  createdAtMs: ms(record.createdAt),
});

export const requestLogMessage = ({ log, record }: { log: RequestLog; record: UsageRecord }): RequestLogMessage => ({
  usage: usageMessage(record),
  capture: log.capture,
  errorMessage: log.errorMessage ?? undefined,
  requestBody: log.requestBody ?? undefined,
  responseBody: log.responseBody ?? undefined,
  truncated: log.truncated,
});

export const statisticsRow = (counts: UsageCounts & { day?: Date; model?: string }): StatisticsRow => ({
  day: counts.day?.toISOString().slice(0, 10) ?? "",
  model: counts.model ?? "",
  requests: Number(counts.requests),
  promptTokens: Number(counts.promptTokens),
  completionTokens: Number(counts.completionTokens),
  cachedTokens: Number(counts.cachedTokens),
  cacheCreationTokens: Number(counts.cacheCreationTokens),
  reasoningTokens: Number(counts.reasoningTokens),
  costMicros: Number(counts.costMicros),
});

// The AdminService's messages.

export const grantMessage = (grant: { grantee: string; role: string; grantedBy: string; grantedAt: Date } | null) => ({
  grantee: grant?.grantee ?? "",
  role: grant?.role ?? "",
  grantedBy: grant?.grantedBy ?? "",
  grantedAtMs: grant?.grantedAt.getTime() ?? 0,
});

export const statusMessage = (account: {
  id: string;
  disabledAt: Date | null;
  defaultGroup: string | null;
  logCapture: string | null;
}) => ({
  accountId: account.id,
  disabledAtMs: account.disabledAt?.getTime() ?? 0,
  group: account.defaultGroup ?? undefined,
  logCapture: account.logCapture ?? undefined,
});

const json = (value: unknown) => (value === null ? "" : JSON.stringify(value));
export const auditMessage = (entry: AuditEntry) => ({
  id: entry.id,
  atMs: entry.at.getTime(),
  actorAccountId: entry.actorAccountId ?? "",
  actor: entry.actor,
  actorRole: entry.actorRole,
  action: entry.action,
  accountId: entry.accountId ?? "",
  target: entry.target ?? "",
  beforeJson: json(entry.before),
  afterJson: json(entry.after),
});
