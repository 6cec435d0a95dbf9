import {
  AlipayClient,
  type AlipayConfig,
  type ProviderPayment,
  WechatPayClient,
  type WechatPayConfig,
} from "@gateway/payments";
import { PaymentProvider } from "@gateway/proto/ledger/v1/console";
import type { PaymentProviderName } from "../http/to-json.js";

export interface PlacedPayment {
  qrCode: string;
  payUrl?: string;
}

export interface PaymentOrderFacts {
  outTradeNo: string;
  amountFen: number;
  expiresAt: Date;
}

/** The answer of a provider query: its payment, "no such trade" (never paid), or a failure to ask. */
export type PaymentQuery = { found: true; payment: ProviderPayment } | { found: false } | { error: string };

/** One way to pay (WeChat Pay Native, Alipay precreate), as the top-up flow and the reconcile job use it. */
export interface PaymentMethod {
  name: PaymentProviderName;
  provider: PaymentProvider;
  /** The merchant the orders are placed with: WeChat Pay's mchid, Alipay's app_id. */
  merchantId: string;
  /** The app the orders are made for (WeChat Pay's appid, Alipay's app_id). */
  appId: string;
  place(order: PaymentOrderFacts): Promise<PlacedPayment>;
  query(outTradeNo: string): Promise<PaymentQuery>;
}

export class PaymentPlacementFailed extends Error {}

const subject = "Model gateway balance top-up";
const describeFailure = (failure: { reason: string; code?: string; message?: string }) =>
  [failure.reason, failure.code, failure.message].filter(Boolean).join(": ");

export function wechatPayMethod(config: WechatPayConfig, notifyUrl: () => string): PaymentMethod {
  const client = new WechatPayClient(config);
  return {
    name: "wechat",
    provider: PaymentProvider.PAYMENT_PROVIDER_WECHAT_PAY,
    merchantId: config.mchid,
    appId: config.appid,
    async place(order) {
      const placed = await client.createNativeOrder({ ...order, description: subject, notifyUrl: notifyUrl() });
      if (!placed.ok) throw new PaymentPlacementFailed(describeFailure(placed));
      return { qrCode: placed.codeUrl };
    },
    async query(outTradeNo) {
      const answer = await client.queryOrder(outTradeNo);
      if (answer.ok) return { found: true, payment: answer.payment };
      if (answer.reason === "provider_error" && answer.code === "ORDER_NOT_EXIST") return { found: false };
      return { error: describeFailure(answer) };
    },
  };
}

export function alipayMethod(config: AlipayConfig, notifyUrl: () => string, returnUrl: () => string): PaymentMethod {
  const client = new AlipayClient(config);
  return {
    name: "alipay",
    provider: PaymentProvider.PAYMENT_PROVIDER_ALIPAY,
    merchantId: config.appId,
    appId: config.appId,
    async place(order) {
      const alipayOrder = { ...order, subject, notifyUrl: notifyUrl(), returnUrl: returnUrl() };
      const placed = await client.precreate(alipayOrder);
      if (!placed.ok) throw new PaymentPlacementFailed(describeFailure(placed));
      return { qrCode: placed.qrCode, payUrl: client.pagePayUrl(alipayOrder) };
    },
    async query(outTradeNo) {
      const answer = await client.query(outTradeNo);
      if (answer.ok) return { found: true, payment: answer.payment };
      if (answer.reason === "provider_error" && answer.subCode === "ACQ.TRADE_NOT_EXIST") return { found: false };
      return { error: describeFailure(answer) };
    },
  };
}

/**
 * The merchant a payment names, as ledger compares it with the order's: WeChat Pay's mchid,
 * Alipay's app_id. Ledger knows no WeChat appid, so a payment for another app of the same
 * merchant is reported under a merchant id no order has, and ledger rejects it.
 */
function merchantOf(payment: ProviderPayment, method: PaymentMethod): string {
  if (method.name === "alipay") return payment.appId;
  return payment.appId === method.appId ? (payment.merchantId ?? "") : `appid:${payment.appId}`;
}

/** What ledger is told about a payment a provider vouched for (a verified notification or a query's answer). */
export function paymentFacts(payment: ProviderPayment, method: PaymentMethod) {
  return {
    outTradeNo: payment.outTradeNo,
    amountFen: payment.amountFen,
    currency: payment.currency,
    merchantId: merchantOf(payment, method),
    providerTradeId: payment.providerTradeNo,
    tradeStatus: payment.state,
    paidAtMs: payment.paidAt?.getTime() ?? 0,
  };
}
