import type { Logger, SqlPool } from "@gateway/platform";
import { renderVideoTask } from "@gateway/platform";
import type { Clock } from "../clock.js";
import type { VideoTask } from "../database.js";
import { type LinkSettings, renderTask } from "../tasks/render-task.js";
import { queryTasks, taskColumns } from "../tasks/task-sql.js";
import { type CallbackPolicy, postCallback } from "./post-callback.js";
import { SIGNATURE_HEADER, signCallback } from "./sign-callback.js";

export interface CallbackDependencies {
  pool: SqlPool;
  clock: Clock;
  links: LinkSettings;
  logger: Logger;
  signingKey: string;
  policy: CallbackPolicy;
  maxAttempts: number;
  baseDelayMs: number;
}

// How long a claimed delivery is reserved for its worker before another may try it: well past
// a delivery's deadline, so a delivery in flight is never claimed twice.
const CLAIM_MS = 60_000;

/**
 * Claims deliveries that are due (a finished task with a callback_url) the way tasks are
 * claimed, so two workers never post the same attempt, by pushing their next time ahead.
 */
function claimDue(pool: SqlPool, now: Date, limit: number): Promise<VideoTask[]> {
  const reservedUntil = new Date(now.getTime() + CLAIM_MS);
  return queryTasks(
    pool,
    "video-claim-callbacks",
    `UPDATE video.tasks SET callback_next_at = $1
     WHERE id IN (
       SELECT id FROM video.tasks
       WHERE callback_state = 'pending' AND callback_next_at <= $2
       ORDER BY callback_next_at
       LIMIT $3
       FOR UPDATE SKIP LOCKED
     )
     RETURNING ${taskColumns}`,
    [reservedUntil, now, limit],
  );
}

export interface CallbackSettings {
  tickMs: number;
  /** Deliveries in flight at once in this process. */
  concurrency: number;
}

export interface CallbackDeliveries {
  /** Stops claiming and waits for the deliveries in flight (each ends by its deadline). */
  stop(): Promise<void>;
}

/**
 * Posts each finished task (the same JSON as GET /v1/videos/generations/{id}) to its
 * callback_url, signed with HMAC-SHA256. A 2xx answer ends it; anything else, or no answer
 * within the policy's deadline, is retried after base, 2×base, 4×base, … up to maxAttempts,
 * then given up (the client can still poll). Deliveries run on their own loop, apart from the
 * task worker's, so a customer's slow server never delays claims, time-outs or purges; the
 * state lives in the task row, so a restart loses none.
 */
export function startCallbackDeliveries(deps: CallbackDependencies, settings: CallbackSettings): CallbackDeliveries {
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let ticking: Promise<void> | undefined;

  const claim = async () => {
    const free = settings.concurrency - inFlight.size;
    if (free <= 0) return;
    for (const task of await claimDue(deps.pool, deps.clock.now(), free)) {
      const delivery = deliverOne(deps, task)
        .catch((error: unknown) => deps.logger.error({ err: error, task_id: task.id }, "could not record a callback"))
        .finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    }
  };

  const timer = setInterval(() => {
    // A tick still claiming (a slow database) is not overtaken by the next.
    if (stopped || ticking) return;
    ticking = claim()
      .catch((error: unknown) => deps.logger.error({ err: error }, "claiming callbacks failed; retrying next tick"))
      .finally(() => {
        ticking = undefined;
      });
  }, settings.tickMs);

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await ticking;
      await Promise.allSettled(inFlight);
    },
  };
}

async function deliverOne(deps: CallbackDependencies, task: VideoTask): Promise<void> {
  const now = deps.clock.now();
  const body = JSON.stringify(renderVideoTask(renderTask(task, deps.links, now.getTime(), "")));
  const headers = { [SIGNATURE_HEADER]: signCallback(deps.signingKey, body, Math.floor(now.getTime() / 1000)) };
  let delivered = false;
  try {
    const status = await postCallback(task.callbackUrl!, body, headers, deps.policy);
    delivered = status >= 200 && status < 300;
    if (!delivered) deps.logger.info({ task_id: task.id, status }, "callback refused; will retry");
  } catch (error) {
    deps.logger.info({ task_id: task.id, err: error }, "callback failed; will retry");
  }
  const attempts = task.callbackAttempts + 1;
  const gaveUp = !delivered && attempts >= deps.maxAttempts;
  const { rowCount } = await deps.pool.query({
    name: "video-record-callback",
    text: "UPDATE video.tasks SET callback_attempts = $2, callback_state = $3, callback_next_at = $4 WHERE id = $1",
    values: [
      task.id,
      attempts,
      delivered ? "delivered" : gaveUp ? "gave_up" : "pending",
      // Back-off counts from the attempt's end: a delivery may have run until its deadline.
      delivered || gaveUp ? null : new Date(deps.clock.now().getTime() + deps.baseDelayMs * 2 ** (attempts - 1)),
    ],
  });
  // The task was purged during the delivery: the caller logs it, as it logs any write that failed.
  if (rowCount === 0) throw new Error(`video task ${task.id} no longer exists`);
}
