import type { UsagePublisher } from "@gateway/shared";
import type { Clock } from "../clock.js";
import type { Database, VideoTask } from "../database.js";
import type { VideoModel } from "../tasks/find-video-model.js";
import { videoUsageEvent } from "./video-usage.js";

/**
 * Publishes a completed task's usage and, once JetStream or the spool holds the event, marks
 * the task so the usage sweep leaves it alone. False when the event could not be made durable
 * (the task stays unmarked and the sweep tries again).
 */
export async function publishTaskUsage(
  deps: { database: Database; clock: Clock; usage: UsagePublisher },
  task: VideoTask,
  video: VideoModel,
  seconds: number,
): Promise<boolean> {
  if (!(await deps.usage.publishDurably(videoUsageEvent(task, video, seconds)))) return false;
  await deps.database.videoTask.updateMany({
    where: { id: task.id, usagePublishedAt: null },
    data: { usagePublishedAt: deps.clock.now() },
  });
  return true;
}
