import { describe, expect, it } from "vitest";
import { rsaKeyPair } from "../../test/rsa-keys.js";
import { alipayConfigFromEnv } from "../alipay/config.js";
import { wechatPayConfigFromEnv } from "./config.js";

const keys = rsaKeyPair();
const privatePem = keys.privateKey.export({ format: "pem", type: "pkcs8" }).toString();
const publicPem = keys.publicKey.export({ format: "pem", type: "spki" }).toString();
const wechatEnv = {
  WECHATPAY_MCHID: "1900000109",
  WECHATPAY_APPID: "wxd678efh567hg6787",
  // Written on one line with \n escapes, as .env files and CI secrets often carry it.
  WECHATPAY_PRIVATE_KEY: privatePem.replaceAll("\n", "\\n"),
  WECHATPAY_CERT_SERIAL: "SERIAL",
  WECHATPAY_APIV3_KEY: "0123456789abcdefghijklmnopqrstuv",
  WECHATPAY_PLATFORM_PUBLIC_KEY: publicPem,
};

describe("the payment settings from the environment", () => {
  it("leaves a method off when its id is unset", () => {
    expect(wechatPayConfigFromEnv({})).toBeUndefined();
    expect(alipayConfigFromEnv({})).toBeUndefined();
  });

  it("reads WeChat Pay's, defaulting to the real endpoint", () => {
    const config = wechatPayConfigFromEnv(wechatEnv);
    expect(config?.baseUrl).toBe("https://api.mch.weixin.qq.com");
    expect(config?.privateKey.asymmetricKeyType).toBe("rsa");
  });

  it("reads Alipay's bare base64 keys, as its key tool writes them", () => {
    const bare = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, "");
    const config = alipayConfigFromEnv({
      ALIPAY_APP_ID: "2021000000000109",
      ALIPAY_PRIVATE_KEY: bare(privatePem),
      ALIPAY_PUBLIC_KEY: bare(publicPem),
    });
    expect(config?.gatewayUrl).toBe("https://openapi.alipay.com/gateway.do");
    expect(config?.alipayPublicKey.asymmetricKeyType).toBe("rsa");
  });

  it("names what is missing or wrong instead of failing a payment later", () => {
    expect(() => wechatPayConfigFromEnv({ ...wechatEnv, WECHATPAY_APIV3_KEY: "short", WECHATPAY_APPID: "" })).toThrow(
      /WECHATPAY_APPID.*WECHATPAY_APIV3_KEY: must be 32 bytes|WECHATPAY_APIV3_KEY: must be 32 bytes.*WECHATPAY_APPID/,
    );
    expect(() => alipayConfigFromEnv({ ALIPAY_APP_ID: "1" })).toThrow(/ALIPAY_PRIVATE_KEY/);
  });
});
