export interface MicroBatcherOptions {
  maxSize: number;
  /** How long the first item of a batch waits for company before the batch is processed. */
  maxWaitMs: number;
}

/**
 * Groups items arriving one by one into batches of up to `maxSize`, or whatever arrived
 * within `maxWaitMs`, and processes one batch at a time. Items that arrive while a batch
 * is processed have waited already, so they go in the next batch without a further wait.
 * `process` must handle its own failures.
 */
export class MicroBatcher<T> {
  private pending: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly process: (batch: T[]) => Promise<void>,
    private readonly options: MicroBatcherOptions,
  ) {}

  add(item: T): void {
    this.pending.push(item);
    if (this.running) return;
    if (this.pending.length >= this.options.maxSize) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.options.maxWaitMs);
  }

  /** Processes everything still pending and resolves when the last batch is done. */
  async drain(): Promise<void> {
    this.flush();
    while (this.running) await this.running;
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running || this.pending.length === 0) return;
    this.running = this.processPending().finally(() => {
      this.running = undefined;
      // Anything added in the instant between the last batch and now still gets a batch.
      if (this.pending.length > 0) this.flush();
    });
  }

  private async processPending(): Promise<void> {
    while (this.pending.length > 0) {
      await this.process(this.pending.splice(0, this.options.maxSize));
    }
  }
}
