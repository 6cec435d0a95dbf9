import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@gateway/platform";
import type { Actor } from "@gateway/proto/ledger/v1/actor";
import { type TopUpOrder, TopUpOrderState } from "@gateway/proto/ledger/v1/console";
import type { Ledger } from "../ledger-client.js";
import { type PaymentMethod, paymentFacts } from "./payment-methods.js";

// WeChat Pay's NOTPAY and USERPAYING, Alipay's WAIT_BUYER_PAY.
const waitingStates = new Set(["NOTPAY", "USERPAYING", "WAIT_BUYER_PAY"]);

export interface ReconcileSettings {
  intervalMs: number;
  /** Orders still `created` this long are asked about at their provider. */
  afterMs: number;
  /** Expired orders are closed this long after their expiry, leaving time for a last notification. */
  closeGraceMs: number;
}

/**
 * Finds payments whose notification never came: each order left open is queried at its
 * provider, and a paid answer is recorded like a notification (ledger credits it once). An
 * order the provider never saw past its expiry is closed there and in ledger.
 */
export async function reconcileOnce(
  ledger: Ledger,
  methods: PaymentMethod[],
  settings: ReconcileSettings,
  logger: Logger,
): Promise<void> {
  const { orders } = await ledger.listStaleTopUpOrders({ olderThanMs: settings.afterMs, limit: 200 });
  for (const order of orders) {
    // One order ledger refuses to hear about must not hold up the others.
    await reconcileOrder(ledger, methods, order, settings, logger).catch((error: unknown) =>
      logger.warn({ err: error, outTradeNo: order.outTradeNo }, "could not reconcile a top-up order"),
    );
  }
  // The providers stop taking payment at the order's time_expire themselves, so ledger alone is closed here.
  const { closedOutTradeNos } = await ledger.closeExpiredTopUpOrders({ graceMs: settings.closeGraceMs });
  if (closedOutTradeNos.length > 0) logger.info({ closed: closedOutTradeNos }, "expired top-up orders closed");
}

/** What asking the provider about one open order came to (the admin's order page shows it). */
export type ReconcileResult =
  | "no_provider"
  | "query_failed"
  | "waiting"
  | "recorded"
  | "unknown_to_provider"
  | "closed";

/**
 * Asks the order's provider about it and records a final answer in ledger; the admin's order
 * check runs this too, naming the operator (`checkedBy`) so ledger audits what it changes.
 */
export async function reconcileOrder(
  ledger: Ledger,
  methods: PaymentMethod[],
  order: TopUpOrder,
  settings: Pick<ReconcileSettings, "closeGraceMs">,
  logger: Logger,
  checkedBy?: Actor,
): Promise<ReconcileResult> {
  const method = methods.find((candidate) => candidate.provider === order.provider);
  if (!method) return "no_provider";
  const answer = await method.query(order.outTradeNo);
  if ("error" in answer) {
    logger.warn({ outTradeNo: order.outTradeNo, reason: answer.error }, "could not ask the provider about an order");
    return "query_failed";
  }
  // Still waiting for the buyer: nothing to record; the order's expiry will close it.
  if (answer.found && !answer.payment.paid && waitingStates.has(answer.payment.state)) return "waiting";
  if (answer.found) {
    const recorded = await ledger.recordPaymentNotification({
      provider: method.provider,
      headers: { source: "reconcile-query" },
      body: JSON.stringify({ query: order.outTradeNo, state: answer.payment.state }),
      signatureVerified: true,
      facts: paymentFacts(answer.payment, method),
      checkedBy,
    });
    logger.info({ outTradeNo: order.outTradeNo, outcome: recorded.outcome }, "reconciled a top-up order");
    return "recorded";
  }
  // The provider never saw the order (placing it failed): nothing can be paid after its expiry.
  if (order.expiresAtMs + settings.closeGraceMs >= Date.now()) return "unknown_to_provider";
  await ledger.closeTopUpOrder({
    outTradeNo: order.outTradeNo,
    state: TopUpOrderState.TOP_UP_ORDER_STATE_CLOSED,
    checkedBy,
  });
  return "closed";
}

/** Runs `reconcileOnce` every interval until the signal aborts; a failed round is logged and the next one tried. */
export async function runReconcileJob(
  run: () => Promise<void>,
  intervalMs: number,
  signal: AbortSignal,
  logger: Logger,
): Promise<void> {
  while (!signal.aborted) {
    await run().catch((error: unknown) => logger.warn({ err: error }, "top-up reconcile round failed"));
    await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
  }
}
