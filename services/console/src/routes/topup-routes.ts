import type { Logger } from "@gateway/platform";
import type { Router } from "express";
import { z } from "zod";
import { ConsoleError, notFound, parseInput } from "../http/console-error.js";
import { orderJson } from "../http/to-json.js";
import type { Ledger } from "../ledger-client.js";
import { sessionOf } from "../sessions/require-session.js";
import { type PaymentMethod, PaymentPlacementFailed } from "../topups/payment-methods.js";

const createTopUpBody = z.object({
  provider: z.enum(["wechat", "alipay"]),
  amountFen: z.number().int().min(100).max(10_000_000),
});
const listQuery = z.object({ cursor: z.string().max(512).optional() });

/** Top-up orders: made in ledger first, then placed with the provider for its QR code. */
export function topUpRoutes(
  router: Router,
  dependencies: { ledger: Ledger; methods: PaymentMethod[]; expiryMs: number; logger: Logger },
): void {
  const { ledger, methods, expiryMs, logger } = dependencies;

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
    try {
      const payment = await method.place({
        outTradeNo: order.outTradeNo,
        amountFen: order.amountFen,
        expiresAt: new Date(order.expiresAtMs),
      });
      response.status(201).json({ order: orderJson(order), payment });
    } catch (error) {
      if (!(error instanceof PaymentPlacementFailed)) throw error;
      // The order stays `created` and unpaid; the reconcile job closes it once it expires.
      logger.warn({ outTradeNo: order.outTradeNo, reason: error.message }, "the provider refused the order");
      throw new ConsoleError(502, "payment_provider_error", "The payment provider did not take the order; try again.");
    }
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
    const outTradeNo = request.params.outTradeNo;
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(outTradeNo)) throw notFound("No such order.");
    const order = await ledger.getTopUpOrder({ accountId: sessionOf(response).accountId, outTradeNo });
    response.json({ order: orderJson(order) });
  });
}
