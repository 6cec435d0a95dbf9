import type { Database } from "../database.js";

/**
 * Takes up to `limit` tasks no live worker holds: pending ones, and processing ones whose
 * worker stopped renewing its lease (it died or hung). FOR UPDATE SKIP LOCKED lets several
 * workers claim at once without waiting on, or taking, each other's rows; the lease then
 * keeps the task theirs after the transaction. A pending task becomes processing here.
 */
export async function claimTasks(
  database: Database,
  claim: { workerId: string; now: Date; leaseMs: number; limit: number },
): Promise<string[]> {
  const leaseUntil = new Date(claim.now.getTime() + claim.leaseMs);
  const rows = await database.$queryRaw<{ id: string }[]>`
    UPDATE video.tasks
    SET status = 'processing', worker_id = ${claim.workerId}, lease_until = ${leaseUntil},
        attempts = attempts + 1, started_at = coalesce(started_at, ${claim.now})
    WHERE id IN (
      SELECT id FROM video.tasks
      WHERE status IN ('pending', 'processing') AND (lease_until IS NULL OR lease_until < ${claim.now})
      ORDER BY created_at
      LIMIT ${claim.limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id`;
  return rows.map((row) => row.id);
}
