import type { UsagePublisher } from "@gateway/billing";
import type { SqlPool } from "@gateway/platform";
import type { Clock } from "../clock.js";
import type { VideoTask } from "../database.js";
import type { VideoModel } from "../tasks/find-video-model.js";
import { videoUsageEvent } from "./video-usage.js";

/**
 * Publishes a completed task's usage and, once JetStream or the spool holds the event, marks
 * the task so the usage sweep leaves it alone. False when the event could not be made durable
 * (the task stays unmarked and the sweep tries again).
 */
export async function publishTaskUsage(
  deps: { pool: SqlPool; clock: Clock; usage: UsagePublisher },
  task: VideoTask,
  video: VideoModel,
  seconds: number,
): Promise<boolean> {
  if (!(await deps.usage.publishDurably(videoUsageEvent(task, video, seconds)))) return false;
  await deps.pool.query({
    name: "video-mark-usage-published",
    text: "UPDATE video.tasks SET usage_published_at = $2 WHERE id = $1 AND usage_published_at IS NULL",
    values: [task.id, deps.clock.now()],
  });
  return true;
}
