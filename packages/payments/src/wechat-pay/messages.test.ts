import { createPrivateKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import { vectorPrivateKey, wechatExampleSignature } from "../../test/openssl-vectors.js";
import { signSha256WithRsa } from "../rsa-sha256.js";
import { formatAuthorization, parseAuthorization, requestMessage, responseMessage } from "./messages.js";

describe("WeChat Pay signature messages", () => {
  it("writes the request message of the documentation's example, signed as openssl signs it", () => {
    const message = requestMessage("GET", "/v3/certificates", "1554208460", "593BEC0C930BF1AFEB40B4A08C8FB242", "");
    expect(message).toBe("GET\n/v3/certificates\n1554208460\n593BEC0C930BF1AFEB40B4A08C8FB242\n\n");
    expect(signSha256WithRsa(createPrivateKey(vectorPrivateKey), message)).toBe(wechatExampleSignature);
  });

  it("ends the response message with the body and a newline", () => {
    expect(responseMessage("1", "n", '{"a":1}')).toBe('1\nn\n{"a":1}\n');
  });
});

describe("the Authorization header", () => {
  const parameters = {
    mchid: "1900000109",
    nonce_str: "N",
    signature: "c2ln",
    timestamp: "1554208460",
    serial_no: "ABC",
  };

  it("round-trips", () => {
    const header = formatAuthorization(parameters);
    expect(header).toBe(
      'WECHATPAY2-SHA256-RSA2048 mchid="1900000109",nonce_str="N",signature="c2ln",timestamp="1554208460",serial_no="ABC"',
    );
    expect(parseAuthorization(header)).toEqual(parameters);
  });

  it("reads the parameters in any order", () => {
    const header =
      'WECHATPAY2-SHA256-RSA2048 serial_no="ABC",timestamp="1554208460",signature="c2ln",nonce_str="N",mchid="1900000109"';
    expect(parseAuthorization(header)).toEqual(parameters);
  });

  it("refuses another scheme or a missing parameter", () => {
    expect(parseAuthorization("Bearer x")).toBeUndefined();
    expect(parseAuthorization('WECHATPAY2-SHA256-RSA2048 mchid="1",nonce_str="N"')).toBeUndefined();
    expect(parseAuthorization(undefined)).toBeUndefined();
  });
});
