import type { Logger } from "@gateway/platform";
import type { TopUpOrder } from "@gateway/proto/ledger/v1/console";
import type { Router } from "express";
import { z } from "zod";
import { ConsoleError, notFound, parseInput } from "../http/console-error.js";
import { orderJson } from "../http/to-json.js";
import type { Ledger } from "../ledger-client.js";
import { sessionOf } from "../sessions/require-session.js";
import { type PaymentMethod, PaymentPlacementFailed } from "../topups/payment-methods.js";
import { type ReconcileSettings, reconcileOrder } from "../topups/reconcile-job.js";

const createTopUpBody = z.object({
  provider: z.enum(["wechat", "alipay"]),
  amountFen: z.number().int().min(100).max(10_000_000),
});
const listQuery = z.object({ cursor: z.string().max(512).optional() });

function orderNumberOf(text: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text)) throw notFound("No such order.");
  return text;
}

/** Top-up orders: made in ledger first, then placed with the provider for its QR code. */
export function topUpRoutes(
  router: Router,
  dependencies: {
    ledger: Ledger;
    methods: PaymentMethod[];
    expiryMs: number;
    reconcile: Pick<ReconcileSettings, "closeGraceMs">;
    logger: Logger;
  },
): void {
  const { ledger, methods, expiryMs, reconcile, logger } = dependencies;

  /**
   * Places the order with its provider for its QR code. Ledger may have handed back an order
   * already open (a second "Pay", or "Pay" again from its row): the providers answer a repeated
   * placement of an unpaid order with its code. One they refuse (paid or closed there meanwhile)
   * is asked about at once, so the next attempt gets a new order instead of the same refusal.
   */
  async function place(method: PaymentMethod, order: TopUpOrder) {
    try {
      return await method.place({
        outTradeNo: order.outTradeNo,
        amountFen: order.amountFen,
        expiresAt: new Date(order.expiresAtMs),
      });
    } catch (error) {
      if (!(error instanceof PaymentPlacementFailed)) throw error;
      // One the provider never saw stays `created` (placed again on the next attempt); the reconcile job closes it once it expires.
      logger.warn({ outTradeNo: order.outTradeNo, reason: error.message }, "the provider refused the order");
      await reconcileOrder(ledger, methods, order, reconcile, logger).catch((failure: unknown) =>
        logger.warn({ err: failure, outTradeNo: order.outTradeNo }, "could not reconcile a refused top-up order"),
      );
      throw new ConsoleError(502, "payment_provider_error", "The payment provider did not take the order; try again.");
    }
  }

  router.post("/topups", async (request, response) => {
    const body = parseInput(createTopUpBody, request.body);
    const method = methods.find((candidate) => candidate.name === body.provider);
    if (!method) throw new ConsoleError(400, "provider_unavailable", `${body.provider} is not configured here.`);
    const order = await ledger.createTopUpOrder({
      accountId: sessionOf(response).accountId,
      provider: method.provider,
      amountFen: body.amountFen,
      merchantId: method.merchantId,
      expiresInMs: expiryMs,
    });
    const payment = await place(method, order);
    response.status(201).json({ order: orderJson(order), payment });
  });

  // The QR code and pay link of an order still awaiting payment, for its row in the history.
  router.post("/topups/:outTradeNo/payment", async (request, response) => {
    const order = await ledger.getTopUpOrder({
      accountId: sessionOf(response).accountId,
      outTradeNo: orderNumberOf(request.params.outTradeNo),
    });
    if (orderJson(order).state !== "created" || order.expiresAtMs <= Date.now()) {
      throw new ConsoleError(409, "order_not_payable", "This order no longer awaits payment.");
    }
    const method = methods.find(
      (candidate) => candidate.provider === order.provider && candidate.merchantId === order.merchantId,
    );
    if (!method)
      throw new ConsoleError(409, "provider_unavailable", "This order's payment method is not configured here.");
    response.json({ order: orderJson(order), payment: await place(method, order) });
  });

  router.get("/topups", async (request, response) => {
    const { cursor } = parseInput(listQuery, request.query);
    const page = await ledger.listTopUpOrders({
      accountId: sessionOf(response).accountId,
      limit: 50,
      cursor: cursor ?? "",
    });
    response.json({ orders: page.orders.map(orderJson), nextCursor: page.nextCursor });
  });

  router.get("/topups/:outTradeNo", async (request, response) => {
    const outTradeNo = orderNumberOf(request.params.outTradeNo);
    const order = await ledger.getTopUpOrder({ accountId: sessionOf(response).accountId, outTradeNo });
    response.json({ order: orderJson(order) });
  });
}
