import { z } from "zod";
import { yuanToFen } from "../amount.js";
import { providerTime } from "../china-time.js";
import type { ProviderPayment } from "../payment.js";
import type { AlipayConfig } from "./config.js";
import { verifyParameters } from "./sign-content.js";

const notificationFields = z.object({
  notify_id: z.string().min(1),
  notify_type: z.string().optional(),
  app_id: z.string().min(1),
  sign_type: z.literal("RSA2"),
  trade_no: z.string().min(1),
  out_trade_no: z.string().min(1),
  trade_status: z.enum(["WAIT_BUYER_PAY", "TRADE_CLOSED", "TRADE_SUCCESS", "TRADE_FINISHED"]),
  total_amount: z.string(),
  seller_id: z.string().optional(),
  gmt_payment: z.string().optional(),
});

export type AlipayNotificationResult =
  | {
      ok: true;
      /** Alipay's notification id: a retry of the same notification carries the same one. */
      notifyId: string;
      payment: ProviderPayment;
    }
  | { ok: false; reason: "malformed_notification" | "invalid_signature" | "malformed_amount" };

/** The form's parameters, refusing a name given twice: the signature covers one value per name. */
function formParameters(body: string): Record<string, string> | undefined {
  const parameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(parameters, name)) return undefined;
    parameters[name] = value;
  }
  return parameters;
}

/**
 * An asynchronous notification as received (the raw form body): its RSA2 signature with Alipay's
 * public key over the sorted parameters, then its fields, the amount parsed exactly. Never throws.
 */
export function verifyAlipayNotification(
  body: string,
  config: Pick<AlipayConfig, "alipayPublicKey">,
): AlipayNotificationResult {
  const parameters = formParameters(body);
  if (!parameters?.sign) return { ok: false, reason: "malformed_notification" };
  if (!verifyParameters(parameters, config.alipayPublicKey)) return { ok: false, reason: "invalid_signature" };
  const fields = notificationFields.safeParse(parameters);
  if (!fields.success) return { ok: false, reason: "malformed_notification" };
  const amount = yuanToFen(fields.data.total_amount);
  if (!amount.ok) return amount;
  const status = fields.data.trade_status;
  return {
    ok: true,
    notifyId: fields.data.notify_id,
    payment: {
      provider: "alipay",
      outTradeNo: fields.data.out_trade_no,
      providerTradeNo: fields.data.trade_no,
      state: status,
      paid: status === "TRADE_SUCCESS" || status === "TRADE_FINISHED",
      amountFen: amount.fen,
      currency: "CNY",
      appId: fields.data.app_id,
      merchantId: fields.data.seller_id,
      paidAt: providerTime(fields.data.gmt_payment),
    },
  };
}

/** The plain-text answer: exactly `success` once handled, anything else makes Alipay deliver again. */
export function alipayNotificationAnswer(handled: boolean): string {
  return handled ? "success" : "fail";
}
