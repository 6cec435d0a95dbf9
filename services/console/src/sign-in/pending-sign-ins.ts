import { createHash } from "node:crypto";
import type { Redis } from "@gateway/shared";
import { z } from "zod";

const pendingSignIn = z.object({
  provider: z.string(),
  // The hash of the browser's sign-in cookie: a callback from another browser is refused.
  browser: z.string(),
  // Set when a signed-in account links this provider instead of signing in.
  linkAccountId: z.string().optional(),
  codeVerifier: z.string().optional(),
  nonce: z.string().optional(),
});

export type PendingSignIn = z.infer<typeof pendingSignIn>;

const lifetimeSeconds = 600;
export const browserDigest = (value: string) => createHash("sha256").update(value).digest("base64url");

/** A sign-in between its redirect to the provider and the callback, under its `state`, used once. */
export class PendingSignIns {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
  ) {}

  private key = (state: string) => `${this.namespace}:console:sign-in:${state}`;

  async save(state: string, pending: PendingSignIn): Promise<void> {
    await this.redis.set(this.key(state), JSON.stringify(pending), { EX: lifetimeSeconds });
  }

  async take(state: string): Promise<PendingSignIn | undefined> {
    if (!/^[A-Za-z0-9_-]{16,128}$/.test(state)) return undefined;
    const stored = await this.redis.getDel(this.key(state));
    if (!stored) return undefined;
    const parsed = pendingSignIn.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : undefined;
  }
}
