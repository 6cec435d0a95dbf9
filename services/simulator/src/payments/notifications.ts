import { randomUUID } from "node:crypto";
import { fenToYuan } from "@gateway/payments";
import { alipayTimestamp, encryptResource, signParameters } from "@gateway/payments/protocol";
import { alipayTradeStatus } from "./alipay-gateway.js";
import { otherMerchant, type PaymentCredentials } from "./credentials.js";
import type { PaymentOrder } from "./orders.js";
import { wechatPaySignedHeaders, wechatPayTransaction } from "./wechat-pay-api.js";

/** One notification as it goes over the wire. */
export interface OutgoingNotification {
  provider: PaymentOrder["provider"];
  outTradeNo: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** How a notification departs from the truth, for the faults; the default is the genuine one. */
export interface NotificationVariant {
  /** The id a provider keeps across retries of one notification. */
  id: string;
  amountFen?: number;
  /** Another merchant's (WeChat mchid/appid) or application's (Alipay app_id) notification. */
  otherMerchant?: boolean;
  /** Signed with a key the merchant does not trust. */
  forged?: boolean;
  /** When it was signed (a replayed capture is old). */
  signedAt?: Date;
}

export function newNotificationId(): string {
  return randomUUID();
}

function wechatPayNotification(
  order: PaymentOrder,
  credentials: PaymentCredentials,
  variant: NotificationVariant,
): OutgoingNotification {
  const { wechat } = credentials;
  const identity = variant.otherMerchant ? otherMerchant : wechat;
  const transaction = wechatPayTransaction(order, identity, variant.amountFen);
  const signedAt = variant.signedAt ?? new Date();
  const body = JSON.stringify({
    id: variant.id,
    create_time: `${signedAt.toISOString().slice(0, 19)}+00:00`,
    resource_type: "encrypt-resource",
    event_type: "TRANSACTION.SUCCESS",
    summary: "支付成功",
    resource: encryptResource(wechat.apiV3Key, JSON.stringify(transaction), "transaction"),
  });
  const key = variant.forged ? credentials.forger.privateKey : wechat.platform.privateKey;
  const headers = wechatPaySignedHeaders(body, key, wechat.platformSerial, Math.floor(signedAt.getTime() / 1000));
  return {
    provider: "wechat_pay",
    outTradeNo: order.outTradeNo,
    url: order.notifyUrl,
    headers: { ...headers, "content-type": "application/json" },
    body,
  };
}

function alipayNotification(
  order: PaymentOrder,
  credentials: PaymentCredentials,
  variant: NotificationVariant,
): OutgoingNotification {
  const { alipay } = credentials;
  const amount = fenToYuan(variant.amountFen ?? order.amountFen);
  const paidAt = alipayTimestamp(order.paidAt ?? new Date());
  const parameters: Record<string, string> = {
    notify_time: alipayTimestamp(variant.signedAt ?? new Date()),
    notify_type: "trade_status_sync",
    notify_id: variant.id,
    app_id: variant.otherMerchant ? otherMerchant.alipayAppId : alipay.appId,
    auth_app_id: variant.otherMerchant ? otherMerchant.alipayAppId : alipay.appId,
    charset: "utf-8",
    version: "1.0",
    sign_type: "RSA2",
    trade_no: order.providerTradeNo,
    out_trade_no: order.outTradeNo,
    buyer_id: "2088102177846875",
    buyer_logon_id: "sim***@example.com",
    seller_id: alipay.sellerId,
    trade_status: alipayTradeStatus(order),
    total_amount: amount,
    receipt_amount: amount,
    invoice_amount: amount,
    buyer_pay_amount: amount,
    point_amount: "0.00",
    subject: order.description,
    gmt_create: alipayTimestamp(order.createdAt),
    gmt_payment: paidAt,
    fund_bill_list: JSON.stringify([{ amount, fundChannel: "ALIPAYACCOUNT" }]),
  };
  const key = variant.forged ? credentials.forger.privateKey : alipay.alipay.privateKey;
  return {
    provider: "alipay",
    outTradeNo: order.outTradeNo,
    url: order.notifyUrl,
    headers: { "content-type": "application/x-www-form-urlencoded;charset=utf-8" },
    body: new URLSearchParams(signParameters(parameters, key)).toString(),
  };
}

/** The provider's notification that `order` (as it stands, or as if paid for the attacks) was paid. */
export function paymentNotification(
  order: PaymentOrder,
  credentials: PaymentCredentials,
  variant: NotificationVariant,
): OutgoingNotification {
  return order.provider === "wechat_pay"
    ? wechatPayNotification(order, credentials, variant)
    : alipayNotification(order, credentials, variant);
}
