import type { Logger, Redis } from "@gateway/platform";
import { ResolveKeyResponse } from "@gateway/proto/ledger/v1/ledger";

/**
 * The Redis cache of ResolveKey answers, keyed by key hash and holding the encoded
 * protobuf response (base64). Every operation is best effort: a failure is logged and
 * treated as a miss, because Postgres still has the truth.
 */
export class KeyCache {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
    private readonly logger: Logger,
  ) {}

  private entry(keyHash: string): string {
    return `${this.namespace}:key:${keyHash}`;
  }

  async get(keyHash: string): Promise<ResolveKeyResponse | undefined> {
    try {
      const cached = await this.redis.get(this.entry(keyHash));
      return cached === null ? undefined : ResolveKeyResponse.decode(Buffer.from(cached, "base64"));
    } catch (error) {
      this.logger.warn({ err: error }, "key cache read failed; resolving from Postgres");
      return undefined;
    }
  }

  async set(keyHash: string, response: ResolveKeyResponse, ttlSeconds: number): Promise<void> {
    try {
      const encoded = Buffer.from(ResolveKeyResponse.encode(response).finish()).toString("base64");
      await this.redis.set(this.entry(keyHash), encoded, { expiration: { type: "EX", value: ttlSeconds } });
    } catch (error) {
      this.logger.warn({ err: error }, "key cache write failed");
    }
  }

  async delete(...keyHashes: string[]): Promise<void> {
    if (keyHashes.length === 0) return;
    try {
      await this.redis.del(keyHashes.map((keyHash) => this.entry(keyHash)));
    } catch (error) {
      // The entries expire by themselves within a minute, and edges also drop a key on KeyRevoked.
      this.logger.warn({ err: error }, "key cache delete failed; the entries will expire on their own");
    }
  }
}
