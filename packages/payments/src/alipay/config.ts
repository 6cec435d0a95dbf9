import type { KeyObject } from "node:crypto";
import { z } from "zod";
import { parsePrivateKey, parsePublicKey } from "../keys.js";

export interface AlipayConfig {
  appId: string;
  /** The application's private key, which signs every request (RSA2). */
  privateKey: KeyObject;
  /** Alipay's public key (not the application's), which signs answers and notifications. */
  alipayPublicKey: KeyObject;
  /** https://openapi.alipay.com/gateway.do, the sandbox's, or the simulator's. */
  gatewayUrl: string;
  /** The merchant's seller id (2088…), checked against notifications when set. */
  sellerId: string | undefined;
}

const present = z.string().trim().min(1);

const alipayEnv = z.object({
  ALIPAY_APP_ID: present,
  ALIPAY_PRIVATE_KEY: present,
  ALIPAY_PUBLIC_KEY: present,
  ALIPAY_GATEWAY_URL: z.url().default("https://openapi.alipay.com/gateway.do"),
  ALIPAY_SELLER_ID: present.optional(),
});

/**
 * Alipay's settings, or undefined when ALIPAY_APP_ID is unset (the method is off). A partial or
 * malformed setting throws at start-up, naming the variables, rather than failing a payment later.
 */
export function alipayConfigFromEnv(env: NodeJS.ProcessEnv = process.env): AlipayConfig | undefined {
  if (!env.ALIPAY_APP_ID?.trim()) return undefined;
  const parsed = alipayEnv.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`invalid Alipay configuration: ${problems.join("; ")}`);
  }
  const settings = parsed.data;
  return {
    appId: settings.ALIPAY_APP_ID,
    privateKey: parsePrivateKey(settings.ALIPAY_PRIVATE_KEY),
    alipayPublicKey: parsePublicKey(settings.ALIPAY_PUBLIC_KEY),
    gatewayUrl: settings.ALIPAY_GATEWAY_URL,
    sellerId: settings.ALIPAY_SELLER_ID,
  };
}
