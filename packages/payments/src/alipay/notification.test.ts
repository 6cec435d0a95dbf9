import { describe, expect, it } from "vitest";
import { rsaKeyPair } from "../../test/rsa-keys.js";
import { alipayNotificationAnswer, verifyAlipayNotification } from "./notification.js";
import { signParameters } from "./sign-content.js";

const alipay = rsaKeyPair();
const config = { alipayPublicKey: alipay.publicKey };
const fields = {
  notify_time: "2026-11-23 22:00:00",
  notify_type: "trade_status_sync",
  notify_id: "ac05099524730693a8b330c5ecf72da9786",
  app_id: "2021000000000109",
  charset: "utf-8",
  version: "1.0",
  sign_type: "RSA2",
  trade_no: "2026112322001400000000000001",
  out_trade_no: "TOPUP0001",
  seller_id: "2088000000000109",
  trade_status: "TRADE_SUCCESS",
  total_amount: "5.00",
  subject: "充值 5 元 & more",
  fund_bill_list: '[{"amount":"5.00","fundChannel":"ALIPAYACCOUNT"}]',
};

const form = (parameters: Record<string, string>, key = alipay.privateKey) =>
  new URLSearchParams(signParameters(parameters, key)).toString();

describe("verifyAlipayNotification", () => {
  it("verifies a genuine notification and reads the amount in fen", () => {
    expect(verifyAlipayNotification(form(fields), config)).toEqual({
      ok: true,
      notifyId: fields.notify_id,
      payment: {
        provider: "alipay",
        outTradeNo: "TOPUP0001",
        providerTradeNo: fields.trade_no,
        state: "TRADE_SUCCESS",
        paid: true,
        amountFen: 500,
        currency: "CNY",
        appId: fields.app_id,
        merchantId: fields.seller_id,
      },
    });
  });

  it("counts TRADE_FINISHED as paid and WAIT_BUYER_PAY as not", () => {
    const finished = verifyAlipayNotification(form({ ...fields, trade_status: "TRADE_FINISHED" }), config);
    expect(finished.ok && finished.payment.paid).toBe(true);
    const waiting = verifyAlipayNotification(form({ ...fields, trade_status: "WAIT_BUYER_PAY" }), config);
    expect(waiting.ok && waiting.payment.paid).toBe(false);
  });

  it("detects an amount changed after signing", () => {
    const tampered = form(fields).replace("total_amount=5.00", "total_amount=500.00");
    expect(verifyAlipayNotification(tampered, config)).toEqual({ ok: false, reason: "invalid_signature" });
  });

  it("refuses a signature by any key but Alipay's", () => {
    expect(verifyAlipayNotification(form(fields, rsaKeyPair().privateKey), config)).toEqual({
      ok: false,
      reason: "invalid_signature",
    });
  });

  it("refuses a parameter given twice, which the signature cannot cover", () => {
    expect(verifyAlipayNotification(`${form(fields)}&total_amount=500.00`, config)).toEqual({
      ok: false,
      reason: "malformed_notification",
    });
  });

  it("refuses a signed amount that is no exact yuan amount", () => {
    expect(verifyAlipayNotification(form({ ...fields, total_amount: "1.001" }), config)).toEqual({
      ok: false,
      reason: "malformed_amount",
    });
  });

  it("refuses unsigned, incomplete or non-RSA2 notifications", () => {
    expect(verifyAlipayNotification(new URLSearchParams(fields).toString(), config).ok).toBe(false);
    const { out_trade_no: _, ...incomplete } = fields;
    expect(verifyAlipayNotification(form(incomplete), config)).toEqual({ ok: false, reason: "malformed_notification" });
    expect(verifyAlipayNotification(form({ ...fields, sign_type: "RSA" }), config)).toEqual({
      ok: false,
      reason: "malformed_notification",
    });
    expect(verifyAlipayNotification("%%%", config).ok).toBe(false);
  });
});

describe("alipayNotificationAnswer", () => {
  it("is exactly success once handled", () => {
    expect(alipayNotificationAnswer(true)).toBe("success");
    expect(alipayNotificationAnswer(false)).not.toBe("success");
  });
});
