import type { Database } from "../database.js";
import { type BatchOptions, deleteInBatches, type PurgePass } from "./periodic-purge.js";

const DAY_MS = 86_400_000;

/**
 * Deletes the request logs created before `cutoff`, oldest first, in batches. Rows another
 * replica is deleting are skipped, so replicas share a pass instead of waiting on each other.
 * Returns how many it deleted.
 */
export const deleteLogsBefore = (database: Database, cutoff: Date, options: BatchOptions = {}): Promise<number> =>
  deleteInBatches(
    (batchRows) => database.$executeRaw`
      DELETE FROM ledger.request_logs WHERE request_id IN (
        SELECT request_id FROM ledger.request_logs WHERE created_at < ${cutoff}
        ORDER BY created_at LIMIT ${batchRows} FOR UPDATE SKIP LOCKED)`,
    options,
  );

/** Request logs older than `retentionDays`. */
export const requestLogRetention = (database: Database, retentionDays: number): PurgePass => ({
  what: "request logs",
  run: (stopping) => deleteLogsBefore(database, new Date(Date.now() - retentionDays * DAY_MS), { stopping }),
});
