import type { SqlPool } from "@gateway/platform";

export interface TimedOutTask {
  id: string;
  vendorJobId: string | null;
  model: string;
  modelGroup: string;
  channel: string;
  requestId: string;
  accountId: string;
  keyId: string;
  createdAt: Date;
}

export const timeoutMessage = (timeoutMs: number) =>
  `The video task timed out: it did not finish within ${Math.round(timeoutMs / 1000)} seconds and was cancelled.`;

/**
 * Fails every unfinished task older than the time-out, whoever holds it. The holder notices
 * at its next write (which requires status = processing and its worker id) and stops; the
 * caller cancels the returned vendor jobs.
 */
export async function timeOutTasks(
  pool: SqlPool,
  options: { now: Date; timeoutMs: number; limit: number },
): Promise<TimedOutTask[]> {
  const cutoff = new Date(options.now.getTime() - options.timeoutMs);
  const { rows } = await pool.query<TimedOutTask>({
    name: "video-time-out-tasks",
    text: `
      UPDATE video.tasks
      SET status = 'failed', error = $1, finished_at = $2,
          worker_id = NULL, lease_until = NULL,
          callback_state = CASE WHEN callback_url IS NULL THEN NULL ELSE 'pending' END,
          callback_next_at = $2
      WHERE id IN (
        SELECT id FROM video.tasks
        WHERE status IN ('pending', 'processing') AND created_at < $3
        ORDER BY created_at
        LIMIT $4
        FOR UPDATE SKIP LOCKED
      )
      RETURNING id, vendor_job_id AS "vendorJobId", model, model_group AS "modelGroup", channel,
        request_id AS "requestId", account_id AS "accountId", key_id AS "keyId", created_at AS "createdAt"`,
    values: [timeoutMessage(options.timeoutMs), options.now, cutoff, options.limit],
  });
  return rows;
}
