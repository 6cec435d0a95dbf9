import { createHash, randomBytes } from "node:crypto";
import type { Redis } from "@gateway/platform";
import { z } from "zod";

const sessionRecord = z.object({
  accountId: z.string(),
  csrfToken: z.string(),
  // The identity this session signed in with (provider and subject).
  provider: z.string(),
  subject: z.string(),
  createdAtMs: z.number(),
});

export type Session = z.infer<typeof sessionRecord> & { id: string };

export interface SessionLifetimes {
  idleSeconds: number;
  maxSeconds: number;
}

// Redis keeps only a hash of the cookie's value, so reading Redis does not hand out sessions.
const digest = (sessionId: string) => createHash("sha256").update(sessionId).digest("base64url");
export const newToken = () => randomBytes(32).toString("base64url");

/**
 * Server-side sessions in Redis: an opaque random id in the cookie, the record under its hash
 * with an expiry that slides with use (idle) but never passes the absolute lifetime, and a set
 * per account so every session of an account can be ended at once.
 */
export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
    private readonly lifetimes: SessionLifetimes,
  ) {}

  private sessionKey = (hash: string) => `${this.namespace}:console:session:${hash}`;
  private accountKey = (accountId: string) => `${this.namespace}:console:account-sessions:${accountId}`;

  async create(identity: { accountId: string; provider: string; subject: string }): Promise<Session> {
    const id = newToken();
    const record = { ...identity, csrfToken: newToken(), createdAtMs: Date.now() };
    const hash = digest(id);
    await this.redis
      .multi()
      .set(this.sessionKey(hash), JSON.stringify(record), { EX: this.lifetimes.idleSeconds })
      .sAdd(this.accountKey(identity.accountId), hash)
      .expire(this.accountKey(identity.accountId), this.lifetimes.maxSeconds)
      .exec();
    return { id, ...record };
  }

  /** The live session with this id, its idle expiry renewed; undefined when unknown or expired. */
  async touch(id: string): Promise<Session | undefined> {
    const key = this.sessionKey(digest(id));
    const stored = await this.redis.get(key);
    if (!stored) return undefined;
    const parsed = sessionRecord.safeParse(JSON.parse(stored));
    if (!parsed.success) return undefined;
    const remainingSeconds = Math.floor(
      (parsed.data.createdAtMs + this.lifetimes.maxSeconds * 1000 - Date.now()) / 1000,
    );
    if (remainingSeconds <= 0) {
      await this.redis.del(key);
      return undefined;
    }
    await this.redis.expire(key, Math.min(this.lifetimes.idleSeconds, remainingSeconds));
    return { id, ...parsed.data };
  }

  async end(session: Session): Promise<void> {
    const hash = digest(session.id);
    await this.redis.multi().del(this.sessionKey(hash)).sRem(this.accountKey(session.accountId), hash).exec();
  }

  /** Ends every session of the account ("sign out everywhere"). */
  async endAll(accountId: string): Promise<void> {
    const hashes = await this.redis.sMembers(this.accountKey(accountId));
    const transaction = this.redis.multi();
    for (const hash of hashes) transaction.del(this.sessionKey(hash));
    transaction.del(this.accountKey(accountId));
    await transaction.exec();
  }
}
