import { createHash } from "node:crypto";

/** One vendor API key of a channel. Only `secret` is the key; logs, metrics and views use the rest. */
export interface ChannelKey {
  // A fingerprint of the key: the same on every router and across restarts, so disabling it sticks.
  id: string;
  // What an operator is shown: enough of each end to recognise the key, never the whole of it.
  masked: string;
  secret: string;
}

/** The first 12 hex digits of the key's SHA-256: stable, and no help in guessing the key. */
export function keyFingerprint(secret: string): string {
  return createHash("sha256").update(secret).digest("hex").slice(0, 12);
}

/** The key's first 3 and last 4 characters, or only its last 2 when it is too short to spare 7. */
export function maskKey(secret: string): string {
  return secret.length >= 16 ? `${secret.slice(0, 3)}...${secret.slice(-4)}` : `...${secret.slice(-2)}`;
}

export function channelKey(secret: string): ChannelKey {
  return { id: keyFingerprint(secret), masked: maskKey(secret), secret };
}
