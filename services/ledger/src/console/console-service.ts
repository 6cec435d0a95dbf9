import { unaryHandler } from "@gateway/platform";
import {
  type AccountRequest,
  type AdjustCreditRequest,
  type CloseExpiredTopUpOrdersRequest,
  type CloseTopUpOrderRequest,
  type ConsoleServiceServer,
  type CreateKeyRequest,
  type CreateTopUpOrderRequest,
  type FindOrCreateAccountByIdentityRequest,
  type GetStatisticsRequest,
  type KeyRequest,
  type LinkIdentityRequest,
  type ListAccountsRequest,
  type ListRequestLogsRequest,
  type ListStaleTopUpOrdersRequest,
  type ListTopUpOrdersRequest,
  type ListUsageRequest,
  NotificationOutcome,
  type RecordPaymentNotificationRequest,
  type RequestLogRequest,
  type SetLogCaptureRequest,
  type TopUpOrderRequest,
} from "@gateway/proto/ledger/v1/console";
import { z } from "zod";
import { cursorParam } from "../account-api/cursor.js";
import { findLoggedRequest, findRequestLogs } from "../account-api/find-request-logs.js";
import { findUsagePage } from "../account-api/find-usage-page.js";
import { listPage } from "../account-api/page.js";
import { logsQuery, statisticsQuery, usageQuery } from "../account-api/query-params.js";
import { readStatistics } from "../account-api/read-statistics.js";
import { adjustCredit } from "../accounts/adjust-credit.js";
import type { CommittedBalance } from "../accounts/committed-copies.js";
import { findAccount } from "../accounts/find-account.js";
import { findAccountPage } from "../accounts/list-accounts.js";
import { LOG_CAPTURE_LEVELS } from "../accounts/log-capture.js";
import { setLogCapture } from "../accounts/set-log-capture.js";
import { parseInput } from "../admin/parse-input.js";
import type { Database } from "../database.js";
import { findOrCreateAccountByIdentity } from "../identities/find-or-create-account.js";
import { linkIdentity, listIdentities } from "../identities/link-identity.js";
import { createKey } from "../keys/create-key.js";
import { listKeys } from "../keys/list-keys.js";
import { revokeKey } from "../keys/revoke-key.js";
import { keyNotFound, topUpOrderNotFound } from "../ledger-errors.js";
import { findAccountTopUpOrder, findTopUpOrderPage } from "../topups/account-top-up-orders.js";
import { createTopUpOrder } from "../topups/create-top-up-order.js";
import { closeExpiredTopUpOrders, closeTopUpOrder, listStaleTopUpOrders } from "../topups/reconcile-top-up-orders.js";
import {
  type NotificationOutcome as Outcome,
  recordPaymentNotification,
} from "../topups/record-payment-notification.js";
import { actorInput } from "./admin-requests.js";
import {
  accountIdOf,
  adjustCreditInput,
  closeState,
  createKeyInput,
  createTopUpOrderInput,
  durationMs,
  identityInput,
  listQuery,
  outTradeNo,
  pageLimit,
  paymentNotificationInput,
} from "./requests.js";
import {
  accountMessage,
  identityMessage,
  keyMessage,
  requestLogMessage,
  statisticsRow,
  topUpOrderMessage,
  usageMessage,
} from "./to-proto.js";

export interface ConsoleDependencies {
  database: Database;
  /** Drops a revoked key from caches and tells the edges (keys/announce-revocation.ts). */
  announceRevocation: (keyHash: string) => Promise<void>;
  /** Writes a committed balance where router checks reservations (usage/settle-reservations.ts). */
  publishBalance: (accountId: string, balance: CommittedBalance) => Promise<void>;
  /** Drops keys from ledger's Redis key cache, so a changed log capture reaches their next lookups. */
  forgetCachedKeys: (keyHashes: string[]) => Promise<void>;
}

const logCaptureInput = z.object({ logCapture: z.enum(LOG_CAPTURE_LEVELS).optional() });
const settingsMessage = (account: { id: string; logCapture: string | null }) => ({
  accountId: account.id,
  logCapture: account.logCapture ?? undefined,
});

const OUTCOME_MESSAGES: Record<Outcome, NotificationOutcome> = {
  credited: NotificationOutcome.NOTIFICATION_OUTCOME_CREDITED,
  duplicate: NotificationOutcome.NOTIFICATION_OUTCOME_DUPLICATE,
  pending: NotificationOutcome.NOTIFICATION_OUTCOME_PENDING,
  closed: NotificationOutcome.NOTIFICATION_OUTCOME_CLOSED,
  rejected: NotificationOutcome.NOTIFICATION_OUTCOME_REJECTED,
};

const nextCursor = (page: { next_cursor: string | null }) => page.next_cursor ?? "";

const pageInput = z.object({ limit: pageLimit, cursor: cursorParam(z.uuid()).optional() });
const pageOf = (request: { limit: number; cursor: string }) =>
  parseInput(pageInput, { limit: request.limit, cursor: request.cursor || undefined });

/**
 * ConsoleService: the console's calls, each on the account it names (the console has signed
 * that person in). The reads reuse the account API's queries and their validation.
 */
export function consoleService({
  database,
  announceRevocation,
  publishBalance,
  forgetCachedKeys,
}: ConsoleDependencies): ConsoleServiceServer {
  const publishIfChanged = async (accountId: string, balance: CommittedBalance | undefined) => {
    if (balance) await publishBalance(accountId, balance);
  };
  return {
    findOrCreateAccountByIdentity: unaryHandler(async (request: FindOrCreateAccountByIdentityRequest) => {
      const { account, created } = await findOrCreateAccountByIdentity(database, parseInput(identityInput, request));
      return { account: accountMessage(account), created };
    }),
    linkIdentity: unaryHandler(async (request: LinkIdentityRequest) => {
      const { accountId, ...identity } = request;
      return identityMessage(await linkIdentity(database, accountIdOf(accountId), parseInput(identityInput, identity)));
    }),
    listIdentities: unaryHandler(async (request: AccountRequest) => ({
      identities: (await listIdentities(database, accountIdOf(request.accountId))).map(identityMessage),
    })),

    createTopUpOrder: unaryHandler(async (request: CreateTopUpOrderRequest) => {
      const accountId = accountIdOf(request.accountId);
      const order = await createTopUpOrder(database, { accountId, ...parseInput(createTopUpOrderInput, request) });
      return topUpOrderMessage(order);
    }),
    getTopUpOrder: unaryHandler(async (request: TopUpOrderRequest) => {
      const accountId = accountIdOf(request.accountId);
      if (!outTradeNo.safeParse(request.outTradeNo).success) throw topUpOrderNotFound(request.outTradeNo);
      return topUpOrderMessage(await findAccountTopUpOrder(database, accountId, request.outTradeNo));
    }),
    listTopUpOrders: unaryHandler(async (request: ListTopUpOrdersRequest) => {
      const accountId = accountIdOf(request.accountId);
      const { limit, cursor } = pageOf(request);
      const rows = await findTopUpOrderPage(database, accountId, limit, cursor);
      const page = listPage(rows, limit, (order) => order, topUpOrderMessage);
      return { orders: page.data, nextCursor: nextCursor(page) };
    }),
    recordPaymentNotification: unaryHandler(async (request: RecordPaymentNotificationRequest) => {
      const received = parseInput(paymentNotificationInput, request);
      const checkedBy = request.checkedBy && parseInput(actorInput, request.checkedBy);
      const verdict = await recordPaymentNotification(database, { ...received, checkedBy });
      if (verdict.order) await publishIfChanged(verdict.order.accountId, verdict.balance);
      return {
        outcome: OUTCOME_MESSAGES[verdict.outcome],
        reason: verdict.reason ?? "",
        notificationId: verdict.notificationId,
        order: verdict.order && topUpOrderMessage(verdict.order),
      };
    }),
    listStaleTopUpOrders: unaryHandler(async (request: ListStaleTopUpOrdersRequest) => {
      const olderThanMs = parseInput(durationMs, request.olderThanMs);
      const orders = await listStaleTopUpOrders(database, olderThanMs, parseInput(pageLimit, request.limit));
      return { orders: orders.map(topUpOrderMessage), nextCursor: "" };
    }),
    closeTopUpOrder: unaryHandler(async (request: CloseTopUpOrderRequest) => {
      if (!outTradeNo.safeParse(request.outTradeNo).success) throw topUpOrderNotFound(request.outTradeNo);
      const state = parseInput(closeState, request.state);
      const checkedBy = request.checkedBy && parseInput(actorInput, request.checkedBy);
      return topUpOrderMessage(await closeTopUpOrder(database, request.outTradeNo, state, checkedBy));
    }),
    closeExpiredTopUpOrders: unaryHandler(async (request: CloseExpiredTopUpOrdersRequest) => ({
      closedOutTradeNos: await closeExpiredTopUpOrders(database, parseInput(durationMs, request.graceMs)),
    })),

    getAccount: unaryHandler(async (request: AccountRequest) =>
      accountMessage(await findAccount(database, accountIdOf(request.accountId))),
    ),
    getBalance: unaryHandler(async (request: AccountRequest) => {
      const account = await findAccount(database, accountIdOf(request.accountId));
      return { accountId: account.id, balanceMicros: Number(account.balanceMicros) };
    }),
    createKey: unaryHandler(async (request: CreateKeyRequest) => {
      const accountId = accountIdOf(request.accountId);
      const input = parseInput(createKeyInput, request);
      const { key, apiKey } = await createKey(database, forgetCachedKeys, {
        accountId,
        group: input.group,
        name: input.name,
        expiresAt: input.expiresAtMs ? new Date(input.expiresAtMs) : undefined,
        spendCapMicros: input.spendCapMicros === undefined ? undefined : BigInt(input.spendCapMicros),
        canReadLogs: input.readLogs,
      });
      return { key: keyMessage(key), apiKey };
    }),
    listKeys: unaryHandler(async (request: AccountRequest) => ({
      keys: (await listKeys(database, accountIdOf(request.accountId))).map(keyMessage),
    })),
    revokeKey: unaryHandler(async (request: KeyRequest) => {
      const accountId = accountIdOf(request.accountId);
      if (!z.uuid().safeParse(request.keyId).success) throw keyNotFound(request.keyId);
      return keyMessage(await revokeKey(database, announceRevocation, request.keyId, accountId));
    }),
    listUsage: unaryHandler(async (request: ListUsageRequest) => {
      const accountId = accountIdOf(request.accountId);
      const filter = parseInput(usageQuery, { ...listQuery(request.filter), status: request.status });
      const page = listPage(await findUsagePage(database, accountId, filter), filter.limit, (row) => row, usageMessage);
      return { records: page.data, nextCursor: nextCursor(page) };
    }),
    getStatistics: unaryHandler(async (request: GetStatisticsRequest) => {
      const accountId = accountIdOf(request.accountId);
      const query = parseInput(statisticsQuery, {
        from: request.fromDay || undefined,
        to: request.toDay || undefined,
        model: request.model,
      });
      const { days, totals } = await readStatistics(database, accountId, query);
      return { rows: days.map(statisticsRow), totals: statisticsRow(totals) };
    }),
    listRequestLogs: unaryHandler(async (request: ListRequestLogsRequest) => {
      const accountId = accountIdOf(request.accountId);
      const filter = parseInput(logsQuery, { ...listQuery(request.filter), status: request.status });
      const logged = await findRequestLogs(database, accountId, filter);
      const positionOf = ({ log }: (typeof logged)[number]) => ({ createdAt: log.createdAt, id: log.requestId });
      const page = listPage(logged, filter.limit, positionOf, requestLogMessage);
      return { logs: page.data, nextCursor: nextCursor(page) };
    }),
    getRequestLog: unaryHandler(async (request: RequestLogRequest) => {
      const accountId = accountIdOf(request.accountId);
      return requestLogMessage(await findLoggedRequest(database, accountId, request.requestId));
    }),
    getAccountSettings: unaryHandler(async (request: AccountRequest) =>
      settingsMessage(await findAccount(database, accountIdOf(request.accountId))),
    ),
    setLogCapture: unaryHandler(async (request: SetLogCaptureRequest) => {
      const accountId = accountIdOf(request.accountId);
      const level = parseInput(logCaptureInput, { logCapture: request.logCapture }).logCapture ?? null;
      return settingsMessage(await setLogCapture(database, forgetCachedKeys, accountId, level));
    }),

    listAccounts: unaryHandler(async (request: ListAccountsRequest) => {
      const { limit, cursor } = pageOf(request);
      const page = listPage(await findAccountPage(database, limit, cursor), limit, (row) => row, accountMessage);
      return { accounts: page.data, nextCursor: nextCursor(page) };
    }),
    adjustCredit: unaryHandler(async (request: AdjustCreditRequest) => {
      const accountId = accountIdOf(request.accountId);
      const { actor, actorRole, actorAccountId, ...input } = parseInput(adjustCreditInput, request);
      const { adjustment, balance, replayed } = await adjustCredit(database, {
        accountId,
        ...input,
        actor: { identity: actor, role: actorRole, accountId: actorAccountId },
      });
      await publishBalance(accountId, balance);
      return { adjustmentId: adjustment.id, balanceMicros: Number(balance.micros), replayed };
    }),
  };
}
