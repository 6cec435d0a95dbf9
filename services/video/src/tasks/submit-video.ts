import type { Admission } from "@gateway/billing";
import type { CatalogueHolder } from "@gateway/catalogue";
import { GatewayError, invalidRequest, isUniqueViolation, type SqlPool, serverError } from "@gateway/platform";
import type { SubmitVideoRequest, VideoTask as VideoTaskMessage } from "@gateway/proto/video/v1/video";
import { videoWorstCaseMicros } from "../billing/video-reservation.js";
import type { Clock } from "../clock.js";
import type { VideoTask } from "../database.js";
import { findVideoModel, type VideoModel } from "./find-video-model.js";
import { type LinkSettings, renderTask } from "./render-task.js";
import { checkStorable } from "./storable-request.js";
import { DURATIONS, newTaskId, TASK_LIFETIME_MS } from "./task-rules.js";
import { findTaskByIdempotencyKey, findTaskByRequestId, insertTask } from "./task-sql.js";

export interface SubmitDependencies {
  pool: SqlPool;
  clock: Clock;
  catalogue: CatalogueHolder;
  links: LinkSettings;
  // The key's and account's per-minute and concurrency limits (shared with router's requests)
  // and the cost reservation, in one Redis call.
  admission: Admission;
  // How long a task's reservation holds: past the task time-out, so it lasts until the task is settled.
  reservationTtlMs: number;
}

const idempotencyConflict = () =>
  new GatewayError(
    409,
    "invalid_request_error",
    "idempotency_key_reused",
    "This Idempotency-Key was already used for a different video request.",
    "Idempotency-Key",
  );

const sameRequest = (task: VideoTask, request: SubmitVideoRequest) =>
  task.model === request.model &&
  task.prompt === request.prompt &&
  task.durationSeconds === request.durationSeconds &&
  (task.callbackUrl ?? "") === request.callbackUrl;

/**
 * Reserves the cost of every requested second, records a new pending task (workers pick it
 * up) and answers at once. Edge has validated the body; the checks here guard the contract for
 * any other caller. With an Idempotency-Key the account's earlier task of that key is returned
 * instead (nothing reserved twice), and a concurrent duplicate loses the unique
 * (account_id, idempotency_key) race, releases its reservation and returns the winner's task.
 * A call edge sends again (to another replica, after it lost the first) carries the same
 * request id: when the first run stored its task, that task is the answer, and the
 * reservation under the request id is its own, never released here.
 */
export function submitVideo(deps: SubmitDependencies) {
  return async (request: SubmitVideoRequest): Promise<VideoTaskMessage> => {
    const caller = request.caller;
    if (!caller?.requestId || !caller.modelGroup) throw serverError("Request arrived without a caller.");
    checkStorable(request);
    const video = findVideoModel(deps.catalogue, request.model, caller.modelGroup);
    if (!request.prompt.trim()) throw invalidRequest("Invalid 'prompt': must not be empty.", "prompt");
    if (!(DURATIONS as readonly number[]).includes(request.durationSeconds)) {
      throw invalidRequest(`Invalid 'duration': must be one of ${DURATIONS.join(", ")}.`, "duration");
    }
    const idempotencyKey = request.idempotencyKey || null;
    const render = (task: VideoTask) => renderTask(task, deps.links, deps.clock.nowMs(), request.publicBaseUrl);
    const earlier = async () => {
      if (!idempotencyKey) return undefined;
      const task = await findTaskByIdempotencyKey(deps.pool, caller.accountId, idempotencyKey);
      if (task && !sameRequest(task, request)) throw idempotencyConflict();
      return task;
    };

    // Every submit counts against the key's and account's limits; its slot is held only while it is answered.
    const limits = deps.catalogue.current.limitsFor(caller.modelGroup);
    const again = await findTaskByRequestId(deps.pool, caller.accountId, caller.requestId);
    if (again) return render(again);
    const replay = await earlier();
    const { rateLimits, reservations } = deps.admission;
    try {
      if (replay) {
        await rateLimits.admit(caller, limits, 0);
        return render(replay);
      }
      const cost = videoWorstCaseMicros(video, request.durationSeconds, caller);
      await deps.admission.admit(caller, limits, 0, cost, deps.reservationTtlMs);
      try {
        return render(await createTask(deps, request, video));
      } catch (error) {
        const stored = isUniqueViolation(error)
          ? await findTaskByRequestId(deps.pool, caller.accountId, caller.requestId)
          : undefined;
        if (stored) return render(stored);
        await reservations.release(caller);
        const winner = isUniqueViolation(error) ? await earlier() : undefined;
        if (winner) return render(winner);
        throw error;
      }
    } finally {
      await rateLimits.release(caller);
    }
  };
}

/** Inserts the pending task a worker will pick up. */
function createTask(deps: SubmitDependencies, request: SubmitVideoRequest, video: VideoModel): Promise<VideoTask> {
  const caller = request.caller!;
  const now = deps.clock.now();
  return insertTask(deps.pool, {
    id: newTaskId(),
    requestId: caller.requestId,
    accountId: caller.accountId,
    keyId: caller.keyId,
    modelGroup: caller.modelGroup,
    model: video.model.id,
    vendor: video.model.vendor,
    channel: video.channel.name,
    prompt: request.prompt,
    durationSeconds: request.durationSeconds,
    size: video.rules.size,
    idempotencyKey: request.idempotencyKey || null,
    callbackUrl: request.callbackUrl || null,
    publicBaseUrl: request.publicBaseUrl,
    createdAt: now,
    expiresAt: new Date(now.getTime() + TASK_LIFETIME_MS),
  });
}
