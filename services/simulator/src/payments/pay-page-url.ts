import type { Exchange } from "../http.js";
import type { PaymentOrder } from "./orders.js";

/**
 * The order's pay page on this simulator, as the address its caller reached it by: it stands in
 * for WeChat's weixin:// code_url and Alipay's qr.alipay.com link, so a QR code of it opens the page.
 */
export function payPageUrl(exchange: Exchange, order: PaymentOrder): string {
  return `http://${exchange.request.headers.host ?? "127.0.0.1"}/pay/${order.token}`;
}
