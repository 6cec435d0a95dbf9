/**
 * Runs tasks one at a time per lane (here: per client address), in arrival order. A lane
 * exists only while it has work, so idle lanes cost nothing.
 */
export class SerialLanes {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(lane: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(lane) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(lane, tail);
    void tail.then(() => {
      if (this.tails.get(lane) === tail) this.tails.delete(lane);
    });
    return result;
  }

  /** Lanes with work queued or running. */
  get size(): number {
    return this.tails.size;
  }
}
