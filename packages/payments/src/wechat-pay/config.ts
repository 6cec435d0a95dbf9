import type { KeyObject } from "node:crypto";
import { z } from "zod";
import { parsePrivateKey, parsePublicKey } from "../keys.js";

export interface WechatPayConfig {
  mchid: string;
  appid: string;
  /** The merchant's API private key, which signs every request. */
  privateKey: KeyObject;
  /** Serial number of the merchant API certificate holding that key's public half. */
  certSerial: string;
  /** The APIv3 key: 32 bytes that decrypt notification resources. */
  apiV3Key: string;
  /** WeChat Pay's platform public key (or certificate), which signs responses and notifications. */
  platformPublicKey: KeyObject;
  /** The platform key's serial or public-key id; when set, messages naming another are refused. */
  platformSerial: string | undefined;
  /** https://api.mch.weixin.qq.com, or the simulator. */
  baseUrl: string;
}

const present = z.string().trim().min(1);

const wechatPayEnv = z.object({
  WECHATPAY_MCHID: present,
  WECHATPAY_APPID: present,
  WECHATPAY_PRIVATE_KEY: present,
  WECHATPAY_CERT_SERIAL: present,
  WECHATPAY_APIV3_KEY: z.string().refine((key) => Buffer.byteLength(key) === 32, "must be 32 bytes"),
  WECHATPAY_PLATFORM_PUBLIC_KEY: present,
  WECHATPAY_PLATFORM_SERIAL: present.optional(),
  WECHATPAY_BASE_URL: z.url().default("https://api.mch.weixin.qq.com"),
});

/**
 * WeChat Pay's settings, or undefined when WECHATPAY_MCHID is unset (the method is off). A partial
 * or malformed setting throws at start-up, naming the variables, rather than failing a payment later.
 */
export function wechatPayConfigFromEnv(env: NodeJS.ProcessEnv = process.env): WechatPayConfig | undefined {
  if (!env.WECHATPAY_MCHID?.trim()) return undefined;
  const parsed = wechatPayEnv.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`invalid WeChat Pay configuration: ${problems.join("; ")}`);
  }
  const settings = parsed.data;
  return {
    mchid: settings.WECHATPAY_MCHID,
    appid: settings.WECHATPAY_APPID,
    privateKey: parsePrivateKey(settings.WECHATPAY_PRIVATE_KEY),
    certSerial: settings.WECHATPAY_CERT_SERIAL,
    apiV3Key: settings.WECHATPAY_APIV3_KEY,
    platformPublicKey: parsePublicKey(settings.WECHATPAY_PLATFORM_PUBLIC_KEY),
    platformSerial: settings.WECHATPAY_PLATFORM_SERIAL,
    baseUrl: settings.WECHATPAY_BASE_URL.replace(/\/+$/, ""),
  };
}
