import type { Actor } from "../audit/record-audit.js";
import type { Database } from "../database.js";
import { topUpOrderFinished, topUpOrderNotFound } from "../ledger-errors.js";
import { auditOrderCheck } from "./audit-order-check.js";

/** Orders still `created` that were made before `olderThanMs` ago, oldest first: the reconcile job asks their provider. */
export function listStaleTopUpOrders(database: Database, olderThanMs: number, limit: number, now = new Date()) {
  return database.topUpOrder.findMany({
    where: { state: "created", createdAt: { lt: new Date(now.getTime() - olderThanMs) } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: limit,
  });
}

/**
 * Closes (or fails) an order still `created`; asking again for the state it is in answers
 * the order, and an order paid or finished otherwise is a 409: a final state never changes.
 * An operator's order check that closes it is audited in the same transaction.
 */
export async function closeTopUpOrder(
  database: Database,
  outTradeNo: string,
  state: "closed" | "failed",
  checkedBy?: Actor,
  now = new Date(),
) {
  return database.$transaction(async (transaction) => {
    const { count } = await transaction.topUpOrder.updateMany({
      where: { outTradeNo, state: "created" },
      data: { state, finishedAt: now },
    });
    const order = await transaction.topUpOrder.findUnique({ where: { outTradeNo } });
    if (!order) throw topUpOrderNotFound(outTradeNo);
    if (order.state !== state) throw topUpOrderFinished(outTradeNo, order.state);
    if (checkedBy) {
      const before = count === 1 ? { ...order, state: "created" as const } : order;
      await auditOrderCheck(transaction, checkedBy, before, order, "closed");
    }
    return order;
  });
}

// Enough for any backlog in one call; the reconcile job calls again on its next round.
const CLOSE_BATCH = 1_000;

/**
 * Closes orders still `created` whose expiry passed more than `graceMs` ago (the grace gives
 * the reconcile job time to ask the provider about a payment whose notification was lost).
 * Rows another replica is closing are skipped, not waited for.
 */
export async function closeExpiredTopUpOrders(database: Database, graceMs: number, now = new Date()) {
  const before = new Date(now.getTime() - graceMs).toISOString();
  const rows = await database.$queryRaw<Array<{ out_trade_no: string }>>`
    UPDATE ledger.topup_orders SET state = 'closed', finished_at = ${now.toISOString()}::timestamptz
    WHERE id IN (
      SELECT id FROM ledger.topup_orders
      WHERE state = 'created' AND expires_at < ${before}::timestamptz
      ORDER BY expires_at LIMIT ${CLOSE_BATCH} FOR UPDATE SKIP LOCKED)
    RETURNING out_trade_no`;
  return rows.map((row) => row.out_trade_no);
}
