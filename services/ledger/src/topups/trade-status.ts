import type { PaymentProviderName } from "./payment-provider.js";

/** What a provider's trade status means for our order. */
export type TradeVerdict = "paid" | "pending" | "closed" | "failed" | "unknown";

// WeChat Pay API v3 `trade_state`:
// https://pay.weixin.qq.com/doc/v3/merchant/4012791879 (query order) and the payment notification.
const wechatPay: Record<string, TradeVerdict> = {
  SUCCESS: "paid",
  NOTPAY: "pending",
  USERPAYING: "pending",
  CLOSED: "closed",
  REVOKED: "closed",
  PAYERROR: "failed",
};

// Alipay `trade_status`: https://opendocs.alipay.com/open/194/103296 (TRADE_FINISHED follows
// TRADE_SUCCESS for the same trade once it can no longer be refunded).
const alipay: Record<string, TradeVerdict> = {
  TRADE_SUCCESS: "paid",
  TRADE_FINISHED: "paid",
  WAIT_BUYER_PAY: "pending",
  TRADE_CLOSED: "closed",
};

const byProvider: Record<PaymentProviderName, Record<string, TradeVerdict>> = { wechat_pay: wechatPay, alipay };

/** A status we do not know (WeChat Pay's REFUND among them: refunds are not ours) changes nothing. */
export const tradeVerdict = (provider: PaymentProviderName, status: string): TradeVerdict =>
  Object.hasOwn(byProvider[provider], status) ? byProvider[provider][status]! : "unknown";
