import type { KeyObject } from "node:crypto";
import { chinaWallClock } from "../china-time.js";
import { signSha256WithRsa, verifySha256WithRsa } from "../rsa-sha256.js";

/**
 * The string RSA2 signs: every parameter but `sign` and `sign_type`, empty ones dropped, sorted by
 * name (code-unit order), joined as `k=v&…` with the raw, unencoded values.
 */
export function signContent(parameters: Record<string, string>): string {
  return Object.keys(parameters)
    .filter((name) => name !== "sign" && name !== "sign_type" && parameters[name] !== "")
    .sort()
    .map((name) => `${name}=${parameters[name]}`)
    .join("&");
}

export function signParameters(parameters: Record<string, string>, privateKey: KeyObject): Record<string, string> {
  return { ...parameters, sign: signSha256WithRsa(privateKey, signContent(parameters)) };
}

export function verifyParameters(parameters: Record<string, string>, publicKey: KeyObject): boolean {
  const signature = parameters.sign;
  return signature !== undefined && verifySha256WithRsa(publicKey, signContent(parameters), signature);
}

/** Alipay's `timestamp` and `notify_time` shape, in China Standard Time: "2026-11-23 22:05:00". */
export function alipayTimestamp(date: Date): string {
  return chinaWallClock(date).replace("T", " ");
}
