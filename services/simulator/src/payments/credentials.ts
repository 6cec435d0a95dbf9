import { generateKeyPair, type KeyObject, randomBytes } from "node:crypto";
import { promisify } from "node:util";

const newKeyPair = promisify(generateKeyPair);

interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** The identities of both simulated providers and their merchant: every key is made fresh at each start. */
export interface PaymentCredentials {
  wechat: {
    mchid: string;
    appid: string;
    /** The merchant's API key pair (the simulator checks requests with its public half). */
    merchant: KeyPair;
    merchantSerial: string;
    /** The platform key pair, signing answers and notifications. */
    platform: KeyPair;
    platformSerial: string;
    apiV3Key: string;
  };
  alipay: {
    appId: string;
    sellerId: string;
    /** The application's key pair (requests). */
    app: KeyPair;
    /** Alipay's own key pair (answers and notifications). */
    alipay: KeyPair;
  };
  /** A key nobody trusts: forged notifications are signed with it. */
  forger: KeyPair;
}

/** Another merchant's identity, for notifications that are authentic but not this merchant's. */
export const otherMerchant = { mchid: "1900000110", appid: "wx0000000000000110", alipayAppId: "2021000000000110" };

const rsa = () => newKeyPair("rsa", { modulusLength: 2048 });

export async function generatePaymentCredentials(): Promise<PaymentCredentials> {
  const [merchant, platform, app, alipay, forger] = await Promise.all([rsa(), rsa(), rsa(), rsa(), rsa()]);
  return {
    wechat: {
      mchid: "1900000109",
      appid: "wxd678efh567hg6787",
      merchant,
      merchantSerial: randomBytes(20).toString("hex").toUpperCase(),
      platform,
      platformSerial: `PUB_KEY_ID_${randomBytes(16).toString("hex").toUpperCase()}`,
      // 32 ASCII characters, as WeChat Pay's merchant platform requires of an APIv3 key.
      apiV3Key: randomBytes(16).toString("hex"),
    },
    alipay: { appId: "2021000000000109", sellerId: "2088000000000109", app, alipay },
    forger,
  };
}

const pem = (key: KeyObject, type: "pkcs8" | "spki") => key.export({ format: "pem", type }).toString();

/**
 * The merchant's side of these identities under the variable names the console reads, with the
 * simulator as both providers' endpoint: what a development stack passes on.
 */
export function merchantEnvironment(credentials: PaymentCredentials, origin: string): Record<string, string> {
  const { wechat, alipay } = credentials;
  return {
    WECHATPAY_MCHID: wechat.mchid,
    WECHATPAY_APPID: wechat.appid,
    WECHATPAY_PRIVATE_KEY: pem(wechat.merchant.privateKey, "pkcs8"),
    WECHATPAY_CERT_SERIAL: wechat.merchantSerial,
    WECHATPAY_APIV3_KEY: wechat.apiV3Key,
    WECHATPAY_PLATFORM_PUBLIC_KEY: pem(wechat.platform.publicKey, "spki"),
    WECHATPAY_PLATFORM_SERIAL: wechat.platformSerial,
    WECHATPAY_BASE_URL: origin,
    ALIPAY_APP_ID: alipay.appId,
    ALIPAY_PRIVATE_KEY: pem(alipay.app.privateKey, "pkcs8"),
    ALIPAY_PUBLIC_KEY: pem(alipay.alipay.publicKey, "spki"),
    ALIPAY_GATEWAY_URL: `${origin}/gateway.do`,
    ALIPAY_SELLER_ID: alipay.sellerId,
  };
}
