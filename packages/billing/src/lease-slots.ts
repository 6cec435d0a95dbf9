/**
 * The concurrency slots one router holds for a key under a concurrency limit: members of the
 * key's and account's slot sets in Redis (so every router counts them), taken with a lease and
 * lent to requests locally. A request's end gives its slot back to the pool without a Redis call;
 * the pool keeps as many as were in use at once since the last lease (none taken ahead), and
 * hands the free ones back when the key goes idle or the router drains.
 */
export class SlotPool {
  private readonly free: string[] = [];
  private readonly lent = new Set<string>();
  // The most in use at once since the last grant: what the next lease keeps.
  private peak = 0;

  /** Lends a free slot, if the pool has one. */
  lend(): string | undefined {
    const slot = this.free.pop();
    if (slot === undefined) return undefined;
    this.lent.add(slot);
    this.peak = Math.max(this.peak, this.lent.size);
    return slot;
  }

  hasFree(): boolean {
    return this.free.length > 0;
  }

  /** A lent slot back: kept for the next request if `keep`, else answered to be handed back to Redis. */
  giveBack(slot: string, keep: boolean): string | undefined {
    this.lent.delete(slot);
    if (keep) {
      this.free.push(slot);
      return undefined;
    }
    return slot;
  }

  /** How many new slots the next lease asks for: one for the asking request if none is free, and the recent peak's. */
  wanted(asking: boolean): number {
    const held = this.free.length + this.lent.size;
    return Math.max(asking && this.free.length === 0 ? 1 : 0, this.peak - held);
  }

  /** Every slot the pool holds, lent or free: the ids whose lapse a grant puts off. */
  held(): string[] {
    return [...this.free, ...this.lent];
  }

  /** Adds the slots a grant took and starts counting the peak afresh. */
  add(slots: readonly string[]): void {
    this.free.push(...slots);
    this.peak = this.lent.size;
  }

  /** Takes every free slot out, to hand back. */
  drain(): string[] {
    return this.free.splice(0);
  }

  get idle(): boolean {
    return this.lent.size === 0 && this.free.length === 0;
  }
}
