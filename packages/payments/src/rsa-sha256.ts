import { createSign, createVerify, type KeyObject } from "node:crypto";

/** SHA256withRSA (PKCS#1 v1.5), base64: WeChat Pay's WECHATPAY2-SHA256-RSA2048 and Alipay's RSA2. */
export function signSha256WithRsa(privateKey: KeyObject, message: string): string {
  return createSign("RSA-SHA256").update(message, "utf8").sign(privateKey, "base64");
}

/** False for a wrong, truncated or non-base64 signature alike: a caller only needs to know it does not hold. */
export function verifySha256WithRsa(publicKey: KeyObject, message: string, signature: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
  try {
    return createVerify("RSA-SHA256").update(message, "utf8").verify(publicKey, signature, "base64");
  } catch {
    return false;
  }
}
