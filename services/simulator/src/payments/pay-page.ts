import { fenToYuan } from "@gateway/payments";
import { z } from "zod";
import { escapeMarkup } from "../escape-markup.js";
import { type Exchange, type SimulatorState, writeHead } from "../http.js";
import { attackFaults, notificationFaults, notifyMerchant } from "./notify-merchant.js";
import type { PaymentOrder } from "./orders.js";

const providerNames = { wechat_pay: "WeChat Pay (simulated)", alipay: "Alipay (simulated)" };

function sendPage(exchange: Exchange, status: number, title: string, content: string): void {
  if (exchange.closed || exchange.response.headersSent) return;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeMarkup(title)}</title></head>
<body><main><h1>${escapeMarkup(title)}</h1>${content}</main></body></html>`;
  writeHead(exchange, status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(html),
  });
  exchange.response.end(html);
}

function describe(order: PaymentOrder): string {
  return (
    `<p>Order <code id="out-trade-no">${escapeMarkup(order.outTradeNo)}</code>: ${escapeMarkup(order.description)}</p>` +
    `<p>Amount: <strong id="amount">¥${fenToYuan(order.amountFen)}</strong></p>` +
    `<p>State: <span id="state">${order.state}</span></p>`
  );
}

const tokenOf = (exchange: Exchange) => exchange.path.slice("/pay/".length);

function orderOrNotFound(exchange: Exchange, state: SimulatorState): PaymentOrder | undefined {
  const order = state.payments.orders.findByToken(tokenOf(exchange));
  if (!order) sendPage(exchange, 404, "Unknown order", "<p>No order has this pay page.</p>");
  return order;
}

/** `GET /pay/{token}`: what the buyer sees after scanning the QR code, with the one button that pays. */
export function showPayPage(exchange: Exchange, state: SimulatorState): void {
  const order = orderOrNotFound(exchange, state);
  if (!order) return;
  const button =
    order.state === "unpaid"
      ? `<form method="post"><button type="submit" id="pay">Pay ¥${fenToYuan(order.amountFen)}</button></form>`
      : "";
  sendPage(exchange, 200, providerNames[order.provider], describe(order) + button);
}

const payForm = z.object({
  fault: z.enum(notificationFaults).optional(),
  count: z.coerce.number().int().min(1).max(100).default(2),
  delay_ms: z.coerce.number().int().min(0).max(600_000).default(1_000),
});

/**
 * `POST /pay/{token}`: the buyer pays. The order turns paid and the merchant's notify_url is
 * notified in the background; a form field `fault` sends a faulty notification instead.
 */
export async function pay(exchange: Exchange, state: SimulatorState): Promise<void> {
  const order = orderOrNotFound(exchange, state);
  if (!order) return;
  const form = payForm.safeParse(Object.fromEntries(new URLSearchParams(exchange.bodyText)));
  if (!form.success) {
    return sendPage(exchange, 400, "Bad request", `<p>${escapeMarkup(form.error.issues[0]?.message ?? "")}</p>`);
  }
  if (order.state !== "unpaid") return sendPage(exchange, 409, "Not payable", describe(order));
  const { fault, count, delay_ms } = form.data;
  if (!fault || !attackFaults.has(fault)) {
    order.state = "paid";
    order.paidAt = new Date();
  }
  const credentials = await state.payments.credentials;
  void notifyMerchant(order, credentials, state.payments, fault, { count, delayMs: delay_ms }).catch(
    (error: unknown) => {
      // Closing the simulator aborts pending notifications on purpose; anything else is a simulator bug.
      if (state.payments.signal.aborted) return;
      const line = { level: 50, service: "simulator", msg: "payment notification failed", error: String(error) };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    },
  );
  const back = order.returnUrl
    ? `<p><a id="return" href="${escapeMarkup(order.returnUrl)}">Back to the merchant</a></p>`
    : "";
  sendPage(exchange, 200, `${providerNames[order.provider]}: paid`, describe(order) + back);
}
