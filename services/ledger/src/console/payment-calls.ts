import { unaryHandler } from "@gateway/platform";
import type {
  CloseExpiredTopUpOrdersRequest,
  CloseTopUpOrderRequest,
  ConsoleServiceServer,
  ListStaleTopUpOrdersRequest,
  RecordPaymentNotificationRequest,
} from "@gateway/proto/ledger/v1/console";
import { parseInput } from "../admin/parse-input.js";
import { topUpOrderNotFound } from "../ledger-errors.js";
import { closeExpiredTopUpOrders, closeTopUpOrder, listStaleTopUpOrders } from "../topups/reconcile-top-up-orders.js";
import { recordPaymentNotification } from "../topups/record-payment-notification.js";
import { actorInput } from "./admin-requests.js";
import type { ConsoleDependencies } from "./console-dependencies.js";
import { closeState, durationMs, outTradeNo, pageLimit, paymentNotificationInput } from "./requests.js";
import { OUTCOME_MESSAGES, topUpOrderMessage } from "./to-proto.js";

type PaymentCalls = Pick<
  ConsoleServiceServer,
  "recordPaymentNotification" | "listStaleTopUpOrders" | "closeTopUpOrder" | "closeExpiredTopUpOrders"
>;

/** What the providers say about top-up orders: their notifications, and the reconciliation of orders left open. */
export function paymentCalls({ database, publishBalance }: ConsoleDependencies): PaymentCalls {
  return {
    recordPaymentNotification: unaryHandler(async (request: RecordPaymentNotificationRequest) => {
      const received = parseInput(paymentNotificationInput, request);
      const checkedBy = request.checkedBy && parseInput(actorInput, request.checkedBy);
      const verdict = await recordPaymentNotification(database, { ...received, checkedBy });
      if (verdict.order && verdict.balance) await publishBalance(verdict.order.accountId, verdict.balance);
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
  };
}
