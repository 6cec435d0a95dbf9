import { createPrivateKey, createPublicKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import { alipayExampleSignature, vectorPrivateKey } from "../../test/openssl-vectors.js";
import { rsaKeyPair } from "../../test/rsa-keys.js";
import { alipayTimestamp, signContent, signParameters, verifyParameters } from "./sign-content.js";

const request = {
  timestamp: "2014-07-24 03:07:50",
  method: "alipay.trade.query",
  app_id: "2014072300007148",
  sign_type: "RSA2",
  charset: "utf-8",
  version: "1.0",
  biz_content: '{"out_trade_no":"T1","total_amount":"1.00"}',
  return_url: "",
};

describe("Alipay's sign content", () => {
  it("sorts the parameters and leaves out sign, sign_type and empty values, unencoded", () => {
    expect(signContent({ ...request, sign: "x" })).toBe(
      'app_id=2014072300007148&biz_content={"out_trade_no":"T1","total_amount":"1.00"}&charset=utf-8' +
        "&method=alipay.trade.query&timestamp=2014-07-24 03:07:50&version=1.0",
    );
  });

  it("is signed as openssl signs it (RSA2 = SHA256withRSA)", () => {
    expect(signParameters(request, createPrivateKey(vectorPrivateKey)).sign).toBe(alipayExampleSignature);
  });

  it("verifies its own signature and detects any changed, added or removed parameter", () => {
    const keys = rsaKeyPair();
    const signed = signParameters(request, keys.privateKey);
    expect(verifyParameters(signed, keys.publicKey)).toBe(true);
    expect(verifyParameters({ ...signed, app_id: "2014072300007149" }, keys.publicKey)).toBe(false);
    expect(verifyParameters({ ...signed, notify_url: "http://evil" }, keys.publicKey)).toBe(false);
    const { method: _, ...fewer } = signed;
    expect(verifyParameters(fewer, keys.publicKey)).toBe(false);
    expect(verifyParameters(signed, createPublicKey(vectorPrivateKey))).toBe(false);
    expect(verifyParameters({ ...signed, sign: "not base64!" }, keys.publicKey)).toBe(false);
  });
});

describe("alipayTimestamp", () => {
  it("writes China Standard Time", () => {
    expect(alipayTimestamp(new Date("2026-11-23T14:05:09Z"))).toBe("2026-11-23 22:05:09");
  });
});
