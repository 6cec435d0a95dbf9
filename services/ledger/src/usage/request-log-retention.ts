import type { Logger } from "@gateway/shared";
import type { Database } from "../database.js";

const DAY_MS = 86_400_000;
// Small enough that each delete is a short transaction holding few locks.
const BATCH_ROWS = 5_000;
// Logs expire by the day, so a pass every ten minutes keeps the table close to its limit.
const PASS_INTERVAL_MS = 10 * 60_000;

/**
 * Deletes the request logs created before `cutoff`, oldest first, `batchRows` per statement,
 * until none are left or `stopping()` says so. Rows another replica is deleting are skipped,
 * so replicas share a pass instead of waiting on each other. Returns how many it deleted.
 */
export async function deleteLogsBefore(
  database: Database,
  cutoff: Date,
  { batchRows = BATCH_ROWS, stopping = () => false }: { batchRows?: number; stopping?: () => boolean } = {},
): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await database.$executeRaw`
      DELETE FROM ledger.request_logs WHERE request_id IN (
        SELECT request_id FROM ledger.request_logs WHERE created_at < ${cutoff}
        ORDER BY created_at LIMIT ${batchRows} FOR UPDATE SKIP LOCKED)`;
    total += deleted;
    if (deleted < batchRows || stopping()) return total;
  }
}

export interface LogRetention {
  /** Lets a delete in progress finish and runs no more. */
  stop(): Promise<void>;
}

/** Deletes request logs older than `retentionDays` now and every ten minutes after. */
export function startLogRetention(dependencies: {
  database: Database;
  retentionDays: number;
  logger: Logger;
}): LogRetention {
  const { database, retentionDays, logger } = dependencies;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> | undefined;
  const runPass = async () => {
    try {
      const cutoff = new Date(Date.now() - retentionDays * DAY_MS);
      const deleted = await deleteLogsBefore(database, cutoff, { stopping: () => stopped });
      if (deleted > 0) logger.info({ deleted, retentionDays }, "deleted expired request logs");
    } catch (error) {
      logger.error({ err: error }, "deleting expired request logs failed; the next pass retries");
    }
  };
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      pass = runPass().finally(() => {
        pass = undefined;
        if (!stopped) schedule(PASS_INTERVAL_MS);
      });
    }, delayMs);
  };
  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
