import { createHmac } from "node:crypto";

export const SIGNATURE_HEADER = "x-gateway-signature";

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the receiver recomputes it with the
 * shared callback key and rejects stale timestamps, which stops replays of old deliveries.
 */
export function signCallback(key: string, body: string, timestampSeconds: number): string {
  const digest = createHmac("sha256", key).update(`${timestampSeconds}.${body}`).digest("hex");
  return `t=${timestampSeconds},v1=${digest}`;
}
