import { z } from "zod";
import type { HeaderSource } from "../headers.js";
import { parseJson } from "../json.js";
import type { ProviderPayment } from "../payment.js";
import type { WechatPayConfig } from "./config.js";
import { decryptResource, encryptedResource } from "./resource-cipher.js";
import { type SignatureFailure, verifyWechatPaySignature } from "./signature.js";
import { paymentOfTransaction, wechatPayTransaction } from "./transaction.js";

const notificationEnvelope = z.object({
  id: z.string().min(1),
  create_time: z.string().optional(),
  event_type: z.string().min(1),
  resource_type: z.string().optional(),
  summary: z.string().optional(),
  resource: encryptedResource,
});

export type WechatPayNotificationResult =
  | {
      ok: true;
      /** The notification's id: a provider retry carries the same one. */
      notificationId: string;
      /** TRANSACTION.SUCCESS for a payment. */
      eventType: string;
      payment: ProviderPayment;
    }
  | { ok: false; reason: SignatureFailure | "malformed_notification" | "decryption_failed" | "malformed_resource" };

/**
 * A payment notification as received (headers and the raw body, byte for byte): its signature,
 * its freshness, then its resource decrypted with the APIv3 key and validated. Never throws.
 */
export function verifyWechatPayNotification(
  notification: { headers: HeaderSource; body: string },
  config: WechatPayConfig,
  nowSeconds?: number,
): WechatPayNotificationResult {
  const signature = verifyWechatPaySignature(notification.headers, notification.body, config, nowSeconds);
  if (!signature.ok) return signature;
  const envelope = notificationEnvelope.safeParse(parseJson(notification.body));
  if (!envelope.success) return { ok: false, reason: "malformed_notification" };
  const plaintext = decryptResource(config.apiV3Key, envelope.data.resource);
  if (plaintext === undefined) return { ok: false, reason: "decryption_failed" };
  const transaction = wechatPayTransaction.safeParse(parseJson(plaintext));
  if (!transaction.success) return { ok: false, reason: "malformed_resource" };
  return {
    ok: true,
    notificationId: envelope.data.id,
    eventType: envelope.data.event_type,
    payment: paymentOfTransaction(transaction.data),
  };
}

/**
 * The HTTP answer to a notification: 204 without a body once it is handled (credited or already
 * credited), otherwise a 4xx/5xx with WeChat Pay's failure body so it is delivered again later.
 */
export function wechatPayNotificationAnswer(
  handled: boolean,
  status = 500,
): { status: number; headers: Record<string, string>; body: string } {
  if (handled) return { status: 204, headers: {}, body: "" };
  return {
    status,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code: "FAIL", message: "失败" }),
  };
}
