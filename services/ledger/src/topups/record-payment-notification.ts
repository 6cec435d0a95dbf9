import { creditInTransaction } from "../accounts/add-credit.js";
import type { CommittedBalance } from "../accounts/committed-copies.js";
import type { Actor } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import { Prisma, type TopUpOrder } from "../generated/prisma/client.js";
import { auditOrderCheck } from "./audit-order-check.js";
import { MICROS_PER_FEN, type PaymentProviderName } from "./payment-provider.js";
import { tradeVerdict } from "./trade-status.js";

/** What the console read from a notification after verifying its signature. */
export interface PaymentFacts {
  outTradeNo: string;
  amountFen: bigint;
  currency: string;
  merchantId: string;
  providerTradeId: string;
  tradeStatus: string;
  /** When the provider took the money; undefined when it did not say. */
  paidAt?: Date | undefined;
}

export interface ReceivedNotification {
  provider: PaymentProviderName;
  headers: Record<string, string>;
  body: string;
  signatureVerified: boolean;
  facts?: PaymentFacts | undefined;
  /** The operator whose order check asked the provider; audited with the change. */
  checkedBy?: Actor | undefined;
}

export type NotificationOutcome = "credited" | "duplicate" | "pending" | "closed" | "rejected";

interface Verdict {
  outcome: NotificationOutcome;
  reason?: string;
  order?: TopUpOrder;
  /** Only when this notification credited the account. */
  balance?: CommittedBalance;
}

// Fifty copies of one notification may arrive at once; each waits its turn for the order's lock.
const TRANSACTION_OPTIONS = { maxWait: 30_000, timeout: 30_000 };

/**
 * Stores a notification as received and applies it to its order in one transaction: the
 * order row is locked, so concurrent copies queue, and the first one that proves payment
 * moves the order from `created` to `paid` (a guarded update the database's trigger also
 * enforces) together with its credit. Copies after it find the order paid and change
 * nothing. Whatever does not match the order exactly is stored as rejected.
 */
export function recordPaymentNotification(database: Database, received: ReceivedNotification, now = new Date()) {
  return database.$transaction(async (transaction) => {
    const verdict = await applyNotification(transaction, received, now);
    const stored = await transaction.paymentNotification.create({
      data: {
        provider: received.provider,
        headers: received.headers,
        body: received.body,
        signatureVerified: received.signatureVerified,
        facts: received.facts ? factsJson(received.facts) : Prisma.DbNull,
        orderId: verdict.order?.id ?? null,
        outcome: verdict.outcome,
        reason: verdict.reason ?? null,
      },
    });
    if (received.checkedBy && verdict.order) {
      // Only `credited` and `closed` move the order (from created); every other verdict leaves it as it was.
      const moved = verdict.outcome === "credited" || verdict.outcome === "closed";
      const before = moved ? { ...verdict.order, state: "created" as const } : verdict.order;
      await auditOrderCheck(transaction, received.checkedBy, before, verdict.order, "recorded", verdict.outcome);
    }
    return { ...verdict, notificationId: stored.id };
  }, TRANSACTION_OPTIONS);
}

async function applyNotification(
  transaction: Prisma.TransactionClient,
  { provider, signatureVerified, facts }: ReceivedNotification,
  now: Date,
): Promise<Verdict> {
  if (!facts) return { outcome: "rejected", reason: "no verified facts" };
  const order = await lockOrder(transaction, facts.outTradeNo);
  if (!order) return { outcome: "rejected", reason: "unknown order" };
  const rejected = (reason: string): Verdict => ({ outcome: "rejected", reason, order });
  if (!signatureVerified) return rejected("signature not verified");
  const mismatch = mismatchWith(order, provider, facts);
  if (mismatch) return rejected(mismatch);

  const verdict = tradeVerdict(provider, facts.tradeStatus);
  if (verdict === "unknown") return rejected(`trade status ${facts.tradeStatus} changes nothing`);
  if (verdict === "pending") return { outcome: "pending", order };
  if (order.state === "paid") {
    return verdict === "paid" && order.providerTradeId === facts.providerTradeId
      ? { outcome: "duplicate", order }
      : rejected("order already paid by another trade or notification");
  }
  if (order.state !== "created") return rejected(`order is ${order.state}`);
  if (verdict === "closed" || verdict === "failed") {
    return { outcome: "closed", order: await finish(transaction, order, { state: verdict, finishedAt: now }) };
  }
  // A payment the provider took before the order expired counts, however late its
  // notification (or the reconcile job's query) arrives; one after expiry is refused.
  if (order.expiresAt <= now && !(facts.paidAt && facts.paidAt <= order.expiresAt)) return rejected("order expired");
  const { credit, balance } = await creditInTransaction(transaction, {
    accountId: order.accountId,
    amountMicros: order.amountMicros,
    idempotencyKey: `topup:${order.outTradeNo}`,
  });
  const paid = await finish(transaction, order, {
    state: "paid",
    finishedAt: now,
    providerTradeId: facts.providerTradeId,
    creditId: credit.id,
  });
  return { outcome: "credited", order: paid, balance };
}

/** The order row, locked until the transaction ends; undefined for a number that is not ours. */
async function lockOrder(transaction: Prisma.TransactionClient, outTradeNo: string) {
  const [row] = await transaction.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM ledger.topup_orders WHERE out_trade_no = ${outTradeNo} FOR UPDATE`;
  return row ? transaction.topUpOrder.findUniqueOrThrow({ where: { id: row.id } }) : undefined;
}

function mismatchWith(order: TopUpOrder, provider: PaymentProviderName, facts: PaymentFacts): string | undefined {
  if (order.provider !== provider) return `order is for ${order.provider}`;
  if (facts.merchantId !== order.merchantId) return "merchant or app id does not match the order";
  if (facts.currency !== order.currency) return "currency does not match the order";
  if (facts.amountFen * MICROS_PER_FEN !== order.amountMicros) return "amount does not match the order";
  return undefined;
}

/** Moves a created order to a final state, only if it is still created (the trigger refuses anything else). */
async function finish(
  transaction: Prisma.TransactionClient,
  order: TopUpOrder,
  data: Prisma.TopUpOrderUncheckedUpdateManyInput,
) {
  const { count } = await transaction.topUpOrder.updateMany({ where: { id: order.id, state: "created" }, data });
  // The order is locked and was created: anything else is a broken invariant, not a verdict.
  if (count !== 1) throw new Error(`top-up order ${order.outTradeNo} left state created under our lock`);
  return transaction.topUpOrder.findUniqueOrThrow({ where: { id: order.id } });
}

const factsJson = (facts: PaymentFacts) => ({
  out_trade_no: facts.outTradeNo,
  amount_fen: facts.amountFen.toString(),
  currency: facts.currency,
  merchant_id: facts.merchantId,
  provider_trade_id: facts.providerTradeId,
  trade_status: facts.tradeStatus,
  paid_at: facts.paidAt?.toISOString() ?? null,
});
