import type { SqlPool } from "@gateway/platform";
import type { VideoTask } from "../database.js";
import { queryTasks, taskColumns } from "../tasks/task-sql.js";

/**
 * Takes up to `limit` tasks no live worker holds: pending ones, and processing ones whose
 * worker stopped renewing its lease (it died or hung). FOR UPDATE SKIP LOCKED lets several
 * workers claim at once without waiting on, or taking, each other's rows; the lease then
 * keeps the task theirs after the transaction. A pending task becomes processing here, and
 * comes back as it now stands.
 */
export function claimTasks(
  pool: SqlPool,
  claim: { workerId: string; now: Date; leaseMs: number; limit: number },
): Promise<VideoTask[]> {
  const leaseUntil = new Date(claim.now.getTime() + claim.leaseMs);
  return queryTasks(
    pool,
    "video-claim-tasks",
    `
      UPDATE video.tasks
      SET status = 'processing', worker_id = $1, lease_until = $2,
          attempts = attempts + 1, started_at = coalesce(started_at, $3)
      WHERE id IN (
        SELECT id FROM video.tasks
        WHERE status IN ('pending', 'processing') AND (lease_until IS NULL OR lease_until < $3)
        ORDER BY created_at
        LIMIT $4
        FOR UPDATE SKIP LOCKED
      )
      RETURNING ${taskColumns}`,
    [claim.workerId, leaseUntil, claim.now, claim.limit],
  );
}
