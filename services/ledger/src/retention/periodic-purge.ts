import type { Logger } from "@gateway/platform";

// Small enough that each delete is a short transaction holding few locks.
const BATCH_ROWS = 5_000;
// Rows expire by the minute or the day, so a pass every ten minutes keeps tables close to their limits.
const PASS_INTERVAL_MS = 10 * 60_000;

export interface BatchOptions {
  batchRows?: number;
  stopping?: () => boolean;
}

/**
 * Runs `deleteBatch` (which deletes at most `batchRows` rows) until a batch comes back short
 * or `stopping()` says so; returns how many rows were deleted in all.
 */
export async function deleteInBatches(
  deleteBatch: (batchRows: number) => Promise<number>,
  { batchRows = BATCH_ROWS, stopping = () => false }: BatchOptions = {},
): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(batchRows);
    total += deleted;
    if (deleted < batchRows || stopping()) return total;
  }
}

/** One kind of expired row: `run` deletes them (checking `stopping` between batches) and counts them. */
export interface PurgePass {
  what: string;
  run(stopping: () => boolean): Promise<number>;
}

export interface PeriodicPurge {
  /** Lets a delete in progress finish and runs no more. */
  stop(): Promise<void>;
}

/** Runs every pass now and every ten minutes after; a failed pass is logged and retried next time. */
export function startPeriodicPurge(passes: readonly PurgePass[], logger: Logger): PeriodicPurge {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const runPasses = async () => {
    for (const pass of passes) {
      if (stopped) return;
      try {
        const deleted = await pass.run(() => stopped);
        if (deleted > 0) logger.info({ deleted }, `deleted expired ${pass.what}`);
      } catch (error) {
        logger.error({ err: error }, `deleting expired ${pass.what} failed; the next pass retries`);
      }
    }
  };
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      running = runPasses().finally(() => {
        running = undefined;
        if (!stopped) schedule(PASS_INTERVAL_MS);
      });
    }, delayMs);
  };
  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
