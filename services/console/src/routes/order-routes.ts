import type { Logger } from "@gateway/platform";
import { PaymentProvider, type TopUpOrder, TopUpOrderState } from "@gateway/proto/ledger/v1/console";
import type { Router } from "express";
import { z } from "zod";
import type { AdminGuards } from "../http/admin-guards.js";
import { notFound, parseInput } from "../http/console-error.js";
import { orderJson } from "../http/to-json.js";
import type { Ledger, Operations } from "../ledger-client.js";
import type { PaymentMethod } from "../topups/payment-methods.js";
import { type ReconcileResult, type ReconcileSettings, reconcileOrder } from "../topups/reconcile-job.js";

export interface OrderRouteDependencies {
  ledger: Ledger;
  operations: Operations;
  methods: PaymentMethod[];
  reconcile: Pick<ReconcileSettings, "closeGraceMs">;
  logger: Logger;
}

const STATES = {
  created: TopUpOrderState.TOP_UP_ORDER_STATE_CREATED,
  paid: TopUpOrderState.TOP_UP_ORDER_STATE_PAID,
  closed: TopUpOrderState.TOP_UP_ORDER_STATE_CLOSED,
  failed: TopUpOrderState.TOP_UP_ORDER_STATE_FAILED,
} as const;
const METHODS = {
  wechat: PaymentProvider.PAYMENT_PROVIDER_WECHAT_PAY,
  alipay: PaymentProvider.PAYMENT_PROVIDER_ALIPAY,
  code: PaymentProvider.PAYMENT_PROVIDER_PREPAID_CODE,
} as const;

const day = z.iso.date();
const ordersQuery = z.object({
  state: z.enum(Object.keys(STATES) as [keyof typeof STATES]).optional(),
  method: z.enum(Object.keys(METHODS) as [keyof typeof METHODS]).optional(),
  // UTC days, both inclusive.
  from: day.optional(),
  to: day.optional(),
  account: z.uuid().optional(),
  cursor: z.string().max(512).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
const ledgerChanged = new Set<ReconcileResult | "final">(["recorded", "closed"]);
const orderNumber = /^[A-Za-z0-9_-]{6,32}$/;
const DAY_MS = 86_400_000;

const adminOrderJson = (order: TopUpOrder) => ({
  ...orderJson(order),
  accountId: order.accountId,
  accountName: order.accountName ?? null,
  merchantId: order.merchantId,
  providerTradeId: order.providerTradeId ?? null,
});

/** Every account's top-up orders for admins, and asking a provider about an unpaid one (the reconcile job's query). */
export function orderRoutes(router: Router, dependencies: OrderRouteDependencies, guards: AdminGuards): void {
  const { ledger, operations, methods, reconcile, logger } = dependencies;

  router.get("/admin/orders", guards.staff, async (request, response) => {
    const query = parseInput(ordersQuery, request.query);
    const page = await operations.listAllTopUpOrders({
      limit: query.limit,
      cursor: query.cursor ?? "",
      state: query.state ? STATES[query.state] : TopUpOrderState.TOP_UP_ORDER_STATE_UNSPECIFIED,
      provider: query.method ? METHODS[query.method] : PaymentProvider.PAYMENT_PROVIDER_UNSPECIFIED,
      fromMs: query.from ? Date.parse(`${query.from}T00:00:00Z`) : 0,
      toMs: query.to ? Date.parse(`${query.to}T00:00:00Z`) + DAY_MS : 0,
      accountId: query.account,
    });
    response.json({ orders: page.orders.map(adminOrderJson), nextCursor: page.nextCursor });
  });

  router.post("/admin/orders/:outTradeNo/check", guards.staff, async (request, response) => {
    const outTradeNo = request.params.outTradeNo as string;
    if (!orderNumber.test(outTradeNo)) throw notFound("No such order.");
    const actor = guards.actorOf(response);
    const before = await operations.findTopUpOrder({ outTradeNo });
    const result =
      before.state === TopUpOrderState.TOP_UP_ORDER_STATE_CREATED
        ? await reconcileOrder(ledger, methods, before, reconcile, logger, actor)
        : "final";
    // A recorded answer or a closing was audited by ledger with the change; any other check is audited here.
    const after = ledgerChanged.has(result)
      ? await operations.findTopUpOrder({ outTradeNo })
      : await operations.recordOrderCheck({ actor, outTradeNo, result });
    response.json({ result, order: adminOrderJson(after) });
  });
}
