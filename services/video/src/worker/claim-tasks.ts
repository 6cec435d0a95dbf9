import type { SqlPool } from "@gateway/shared";

/**
 * Takes up to `limit` tasks no live worker holds: pending ones, and processing ones whose
 * worker stopped renewing its lease (it died or hung). FOR UPDATE SKIP LOCKED lets several
 * workers claim at once without waiting on, or taking, each other's rows; the lease then
 * keeps the task theirs after the transaction. A pending task becomes processing here.
 */
export async function claimTasks(
  pool: SqlPool,
  claim: { workerId: string; now: Date; leaseMs: number; limit: number },
): Promise<string[]> {
  const leaseUntil = new Date(claim.now.getTime() + claim.leaseMs);
  const { rows } = await pool.query<{ id: string }>({
    name: "video-claim-tasks",
    text: `
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
      RETURNING id`,
    values: [claim.workerId, leaseUntil, claim.now, claim.limit],
  });
  return rows.map((row) => row.id);
}
