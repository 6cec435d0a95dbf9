import { type Exchange, type SimulatorState, sendJson } from "../http.js";
import { merchantEnvironment } from "./credentials.js";
import { payPageUrl } from "./pay-page-url.js";

/** `GET /_sim/payments/credentials`: the merchant's settings (keys, ids, endpoints) under the console's variable names. */
export async function paymentCredentials(exchange: Exchange, state: SimulatorState): Promise<void> {
  const credentials = await state.payments.credentials;
  sendJson(exchange, 200, merchantEnvironment(credentials, `http://${exchange.request.headers.host ?? "127.0.0.1"}`));
}

/** `GET /_sim/payments/orders`: every order either provider took, with its pay page. */
export function listPaymentOrders(exchange: Exchange, state: SimulatorState): void {
  const data = state.payments.orders.list().map((order) => ({
    provider: order.provider,
    out_trade_no: order.outTradeNo,
    amount_fen: order.amountFen,
    state: order.state,
    pay_url: payPageUrl(exchange, order),
  }));
  sendJson(exchange, 200, { data });
}

/** `GET /_sim/payments/notifications`: every delivery attempt, oldest first, with the merchant's answer. */
export function listPaymentNotifications(exchange: Exchange, state: SimulatorState): void {
  sendJson(exchange, 200, { data: state.payments.deliveries });
}
