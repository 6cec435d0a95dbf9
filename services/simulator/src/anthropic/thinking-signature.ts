import { createHash } from "node:crypto";

/**
 * The signature the simulated Claude puts on its thinking. Real signatures are opaque and
 * verified by Anthropic; this one is checkable the same way: thinking that comes back altered,
 * or without its signature, is refused.
 */
export const thinkingSignature = (thinking: string) =>
  createHash("sha256").update(`simulated-thinking\n${thinking}`).digest("base64");
