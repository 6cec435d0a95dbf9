import { type Actor, recordAudit } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import type { Prisma, TopUpOrder } from "../generated/prisma/client.js";
import { findTopUpOrder } from "./all-top-up-orders.js";

/** What an operator's check of an order at its provider came to, as the console names it. */
export const ORDER_CHECK_RESULTS = [
  "recorded",
  "closed",
  "waiting",
  "query_failed",
  "no_provider",
  "unknown_to_provider",
  "final",
] as const;
export type OrderCheckResult = (typeof ORDER_CHECK_RESULTS)[number];

/**
 * Audits an operator's order check as `order.check` in the caller's transaction, the one
 * that applies what the provider answered (if anything): the order's state before and after.
 */
export async function auditOrderCheck(
  transaction: Prisma.TransactionClient,
  actor: Actor,
  before: TopUpOrder,
  after: TopUpOrder,
  result: OrderCheckResult,
  outcome?: string,
): Promise<void> {
  await recordAudit(transaction, {
    actor,
    action: "order.check",
    accountId: before.accountId,
    target: before.outTradeNo,
    before: { state: before.state },
    after: { state: after.state, result, ...(outcome ? { outcome } : {}) },
  });
}

/** Audits a check that changed nothing in ledger (the provider's answer left the order as it was). */
export async function recordOrderCheck(
  database: Database,
  actor: Actor,
  outTradeNo: string,
  result: OrderCheckResult,
): Promise<TopUpOrder> {
  const order = await findTopUpOrder(database, outTradeNo);
  await database.$transaction((transaction) => auditOrderCheck(transaction, actor, order, order, result));
  return order;
}
