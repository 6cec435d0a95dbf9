import { type HeaderSource, headerOf } from "../headers.js";
import { verifySha256WithRsa } from "../rsa-sha256.js";
import type { WechatPayConfig } from "./config.js";
import { responseMessage } from "./messages.js";

export type SignatureFailure = "missing_signature_headers" | "stale_timestamp" | "unknown_serial" | "invalid_signature";

// WeChat Pay's documented tolerance: older (or future) messages may be replays.
export const timestampToleranceSeconds = 300;

/**
 * Checks the Wechatpay-* headers of a response or notification against its raw body with the
 * platform public key. Never throws: every failure is a value the caller can log and refuse.
 */
export function verifyWechatPaySignature(
  headers: HeaderSource,
  body: string,
  config: Pick<WechatPayConfig, "platformPublicKey" | "platformSerial">,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): { ok: true } | { ok: false; reason: SignatureFailure } {
  const timestamp = headerOf(headers, "wechatpay-timestamp");
  const nonce = headerOf(headers, "wechatpay-nonce");
  const signature = headerOf(headers, "wechatpay-signature");
  const serial = headerOf(headers, "wechatpay-serial");
  if (!timestamp || !nonce || !signature || !serial || !/^\d{1,12}$/.test(timestamp)) {
    return { ok: false, reason: "missing_signature_headers" };
  }
  if (Math.abs(nowSeconds - Number(timestamp)) > timestampToleranceSeconds)
    return { ok: false, reason: "stale_timestamp" };
  if (config.platformSerial !== undefined && serial !== config.platformSerial)
    return { ok: false, reason: "unknown_serial" };
  if (!verifySha256WithRsa(config.platformPublicKey, responseMessage(timestamp, nonce, body), signature)) {
    return { ok: false, reason: "invalid_signature" };
  }
  return { ok: true };
}
