import { describe, expect, it } from "vitest";
import { rsaKeyPair } from "../../test/rsa-keys.js";
import { signSha256WithRsa } from "../rsa-sha256.js";
import type { WechatPayConfig } from "./config.js";
import { responseMessage } from "./messages.js";
import { verifyWechatPayNotification, wechatPayNotificationAnswer } from "./notification.js";
import { encryptResource } from "./resource-cipher.js";

const platform = rsaKeyPair();
const stranger = rsaKeyPair();
const now = 1_800_000_000;
const config: WechatPayConfig = {
  mchid: "1900000109",
  appid: "wxd678efh567hg6787",
  privateKey: rsaKeyPair().privateKey,
  certSerial: "MERCHANT",
  apiV3Key: "0123456789abcdefghijklmnopqrstuv",
  platformPublicKey: platform.publicKey,
  platformSerial: "PUB_KEY_ID_1",
  baseUrl: "http://127.0.0.1:1",
};
const transaction = {
  appid: config.appid,
  mchid: config.mchid,
  out_trade_no: "TOPUP0001",
  transaction_id: "4200000000000000000000000001",
  trade_type: "NATIVE",
  trade_state: "SUCCESS",
  success_time: "2026-11-23T22:00:00+08:00",
  amount: { total: 100, payer_total: 100, currency: "CNY", payer_currency: "CNY" },
};

function notification(
  options: {
    body?: string;
    key?: typeof platform.privateKey;
    timestamp?: number;
    serial?: string;
    plaintext?: string;
  } = {},
) {
  const body =
    options.body ??
    JSON.stringify({
      id: "EV-1",
      event_type: "TRANSACTION.SUCCESS",
      resource_type: "encrypt-resource",
      resource: encryptResource(config.apiV3Key, options.plaintext ?? JSON.stringify(transaction), "transaction"),
    });
  const timestamp = String(options.timestamp ?? now);
  const signature = signSha256WithRsa(options.key ?? platform.privateKey, responseMessage(timestamp, "NONCE", body));
  const headers = {
    "wechatpay-timestamp": timestamp,
    "wechatpay-nonce": "NONCE",
    "wechatpay-signature": signature,
    "wechatpay-serial": options.serial ?? "PUB_KEY_ID_1",
  };
  return { headers, body };
}

describe("verifyWechatPayNotification", () => {
  it("verifies, decrypts and reads a genuine notification", () => {
    expect(verifyWechatPayNotification(notification(), config, now)).toEqual({
      ok: true,
      notificationId: "EV-1",
      eventType: "TRANSACTION.SUCCESS",
      payment: {
        provider: "wechat_pay",
        outTradeNo: "TOPUP0001",
        providerTradeNo: "4200000000000000000000000001",
        state: "SUCCESS",
        paid: true,
        amountFen: 100,
        currency: "CNY",
        appId: config.appid,
        merchantId: config.mchid,
        // success_time 22:00 China time.
        paidAt: new Date("2026-11-23T14:00:00Z"),
      },
    });
  });

  it("takes fetch's Headers as well as Node's header object", () => {
    const { headers, body } = notification();
    expect(verifyWechatPayNotification({ headers: new Headers(headers), body }, config, now).ok).toBe(true);
  });

  it("detects a body altered after signing, even by one space", () => {
    const genuine = notification();
    const result = verifyWechatPayNotification({ ...genuine, body: `${genuine.body} ` }, config, now);
    expect(result).toEqual({ ok: false, reason: "invalid_signature" });
  });

  it("refuses a signature by any key but the platform's, and WeChat's probe signatures", () => {
    expect(verifyWechatPayNotification(notification({ key: stranger.privateKey }), config, now)).toEqual({
      ok: false,
      reason: "invalid_signature",
    });
    const probe = notification();
    probe.headers["wechatpay-signature"] = `WECHATPAY/SIGNTEST/${probe.headers["wechatpay-signature"]}`;
    expect(verifyWechatPayNotification(probe, config, now)).toEqual({ ok: false, reason: "invalid_signature" });
  });

  it("refuses a timestamp more than five minutes away, as a replay", () => {
    expect(verifyWechatPayNotification(notification({ timestamp: now - 301 }), config, now).ok).toBe(false);
    expect(verifyWechatPayNotification(notification({ timestamp: now + 301 }), config, now)).toEqual({
      ok: false,
      reason: "stale_timestamp",
    });
    expect(verifyWechatPayNotification(notification({ timestamp: now - 300 }), config, now).ok).toBe(true);
  });

  it("refuses another platform serial and missing headers", () => {
    expect(verifyWechatPayNotification(notification({ serial: "PUB_KEY_ID_2" }), config, now)).toEqual({
      ok: false,
      reason: "unknown_serial",
    });
    const { body } = notification();
    expect(verifyWechatPayNotification({ headers: {}, body }, config, now)).toEqual({
      ok: false,
      reason: "missing_signature_headers",
    });
  });

  it("tells a resource it cannot decrypt from a malformed envelope or transaction", () => {
    const otherKey = { ...config, apiV3Key: "vutsrqponmlkjihgfedcba9876543210" };
    expect(verifyWechatPayNotification(notification(), otherKey, now)).toEqual({
      ok: false,
      reason: "decryption_failed",
    });
    expect(verifyWechatPayNotification(notification({ body: "not json" }), config, now)).toEqual({
      ok: false,
      reason: "malformed_notification",
    });
    expect(verifyWechatPayNotification(notification({ plaintext: '{"amount":"100"}' }), config, now)).toEqual({
      ok: false,
      reason: "malformed_resource",
    });
    const paidWithoutTotal = JSON.stringify({ ...transaction, amount: { currency: "CNY" } });
    expect(verifyWechatPayNotification(notification({ plaintext: paidWithoutTotal }), config, now)).toEqual({
      ok: false,
      reason: "malformed_resource",
    });
  });
});

describe("wechatPayNotificationAnswer", () => {
  it("answers 204 without a body once handled, else a failure WeChat Pay retries", () => {
    expect(wechatPayNotificationAnswer(true)).toEqual({ status: 204, headers: {}, body: "" });
    const failure = wechatPayNotificationAnswer(false, 400);
    expect(failure.status).toBe(400);
    expect(JSON.parse(failure.body)).toEqual({ code: "FAIL", message: "失败" });
  });
});
