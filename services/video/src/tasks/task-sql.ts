import type { SqlPool } from "@gateway/platform";
import type { VideoTask } from "../database.js";

// Every column, named as the generated VideoTask type names it, so a row is a task as it comes.
export const taskColumns = `
  id, request_id AS "requestId", account_id AS "accountId", key_id AS "keyId", model_group AS "modelGroup",
  model, vendor, channel, prompt, duration_seconds AS "durationSeconds", size, status, progress, error,
  vendor_job_id AS "vendorJobId", worker_id AS "workerId", lease_until AS "leaseUntil", attempts,
  idempotency_key AS "idempotencyKey", callback_url AS "callbackUrl", callback_state AS "callbackState",
  callback_attempts AS "callbackAttempts", callback_next_at AS "callbackNextAt",
  public_base_url AS "publicBaseUrl", storage_key AS "storageKey", byte_size AS "byteSize",
  billed_seconds AS "billedSeconds", usage_published_at AS "usagePublishedAt", created_at AS "createdAt",
  started_at AS "startedAt", finished_at AS "finishedAt", expires_at AS "expiresAt"`;

// node-postgres reads bigint columns as strings.
type TaskRow = Omit<VideoTask, "byteSize"> & { byteSize: string | null };

const toTask = (row: TaskRow): VideoTask => ({ ...row, byteSize: row.byteSize === null ? null : BigInt(row.byteSize) });

/** Runs a named statement that selects or returns `taskColumns`, and answers its rows as tasks. */
export async function queryTasks(pool: SqlPool, name: string, text: string, values: unknown[]): Promise<VideoTask[]> {
  const { rows } = await pool.query<TaskRow>({ name, text, values });
  return rows.map(toTask);
}

async function oneTask(pool: SqlPool, name: string, text: string, values: unknown[]): Promise<VideoTask | undefined> {
  const [task] = await queryTasks(pool, name, text, values);
  return task;
}

/** What a new task is made of; everything else starts at its default (pending, no attempts). */
export type NewTask = Pick<
  VideoTask,
  | "id"
  | "requestId"
  | "accountId"
  | "keyId"
  | "modelGroup"
  | "model"
  | "vendor"
  | "channel"
  | "prompt"
  | "durationSeconds"
  | "size"
  | "idempotencyKey"
  | "callbackUrl"
  | "publicBaseUrl"
  | "createdAt"
  | "expiresAt"
>;

/** Inserts a pending task and answers it as stored; a taken request id or idempotency key throws a unique violation. */
export async function insertTask(pool: SqlPool, task: NewTask): Promise<VideoTask> {
  const inserted = await oneTask(
    pool,
    "video-insert-task",
    `INSERT INTO video.tasks (
       id, request_id, account_id, key_id, model_group, model, vendor, channel, prompt, duration_seconds,
       size, idempotency_key, callback_url, public_base_url, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
     RETURNING ${taskColumns}`,
    [
      task.id,
      task.requestId,
      task.accountId,
      task.keyId,
      task.modelGroup,
      task.model,
      task.vendor,
      task.channel,
      task.prompt,
      task.durationSeconds,
      task.size,
      task.idempotencyKey,
      task.callbackUrl,
      task.publicBaseUrl,
      task.createdAt,
      task.expiresAt,
    ],
  );
  return inserted!;
}

/** The account's task submitted with this Idempotency-Key, if any. */
export function findTaskByIdempotencyKey(pool: SqlPool, accountId: string, idempotencyKey: string) {
  return oneTask(
    pool,
    "video-task-by-idempotency-key",
    `SELECT ${taskColumns} FROM video.tasks WHERE account_id = $1 AND idempotency_key = $2`,
    [accountId, idempotencyKey],
  );
}

/** The account's task a submit with this request id stored, if any. */
export function findTaskByRequestId(pool: SqlPool, accountId: string, requestId: string) {
  return oneTask(
    pool,
    "video-task-by-request-id",
    `SELECT ${taskColumns} FROM video.tasks WHERE account_id = $1 AND request_id = $2`,
    [accountId, requestId],
  );
}

/** The account's task of this id, unless it has expired by `now`. */
export function findLiveTask(pool: SqlPool, accountId: string, id: string, now: Date) {
  return oneTask(
    pool,
    "video-live-task",
    `SELECT ${taskColumns} FROM video.tasks WHERE id = $1 AND account_id = $2 AND expires_at > $3`,
    [id, accountId, now],
  );
}

/** The task of this id, expired or not. */
export function findTask(pool: SqlPool, id: string) {
  return oneTask(pool, "video-task", `SELECT ${taskColumns} FROM video.tasks WHERE id = $1`, [id]);
}
