/**
 * A small in-process cache of resolved keys. Entries live briefly (a revocation also
 * evicts them at once over NATS), and the oldest go first when it is full.
 */
export class KeyCache<Value> {
  private readonly entries = new Map<string, { value: Value; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly capacity = 10_000,
  ) {}

  get(hash: string, now = Date.now()): Value | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry.value;
    this.entries.delete(hash);
    return undefined;
  }

  set(hash: string, value: Value, now = Date.now()): void {
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { value, expiresAt: now + this.ttlMs });
  }

  delete(hash: string): void {
    this.entries.delete(hash);
  }
}
