export interface MicroBatcherOptions {
  maxSize: number;
  /** How long the first item of a batch waits for company before the batch is processed. */
  maxWaitMs: number;
  /** How many batches may be processed at once (1: strictly one after another). */
  concurrency: number;
}

/**
 * Groups items arriving one by one into batches of up to `maxSize`, or whatever arrived
 * within `maxWaitMs`, and processes up to `concurrency` batches at a time, so the next batch
 * is gathered and started while the previous one is still being processed. Items that
 * arrive while every slot is busy have waited already, so they go in the next batch
 * without a further wait. `process` must handle its own failures.
 */
export class MicroBatcher<T> {
  private pending: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly process: (batch: T[]) => Promise<void>,
    private readonly options: MicroBatcherOptions,
  ) {}

  add(item: T): void {
    this.pending.push(item);
    if (this.running.size >= this.options.concurrency) return;
    if (this.pending.length >= this.options.maxSize) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.options.maxWaitMs);
  }

  /** Processes everything still pending and resolves when the last batch is done. */
  async drain(): Promise<void> {
    this.flush();
    while (this.running.size > 0) await Promise.all(this.running);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.running.size < this.options.concurrency && this.pending.length > 0) {
      const batch = this.pending.splice(0, this.options.maxSize);
      const processing: Promise<void> = this.process(batch).finally(() => {
        this.running.delete(processing);
        if (this.pending.length > 0) this.flush();
      });
      this.running.add(processing);
    }
  }
}
