import type { SqlPool } from "@gateway/platform";
import { echoed, notFound, serverError } from "@gateway/platform";
import type { GetVideoRequest, VideoTask as VideoTaskMessage } from "@gateway/proto/video/v1/video";
import type { Clock } from "../clock.js";
import { type LinkSettings, renderTask } from "./render-task.js";
import { isTaskId } from "./task-rules.js";
import { findLiveTask } from "./task-sql.js";

/** One answer for unknown, another account's and expired ids, so none can be told apart. */
export const taskNotFound = (id: string) =>
  notFound(`No video task found with id '${echoed(id)}'. Task ids can be queried for 24 hours.`);

export function getVideo(deps: { pool: SqlPool; clock: Clock; links: LinkSettings }) {
  return async (request: GetVideoRequest): Promise<VideoTaskMessage> => {
    const caller = request.caller;
    if (!caller?.accountId) throw serverError("Request arrived without a caller.");
    if (!isTaskId(request.taskId)) throw taskNotFound(request.taskId);
    const now = deps.clock.now();
    const task = await findLiveTask(deps.pool, caller.accountId, request.taskId, now);
    if (!task) throw taskNotFound(request.taskId);
    return renderTask(task, deps.links, now.getTime(), request.publicBaseUrl);
  };
}
