import { publishTaskUsage } from "../billing/publish-task-usage.js";
import { findVideoModel } from "../tasks/find-video-model.js";
import { queryTasks, taskColumns } from "../tasks/task-sql.js";
import type { WorkerDependencies } from "./worker-dependencies.js";

// Longer than the completing worker's own publish can take (a JetStream time-out, then the
// spool write), so the sweep only picks up tasks whose worker died or lost the database.
export const USAGE_SWEEP_GRACE_MS = 60_000;

/**
 * Publishes the usage of completed tasks that were never marked published: the charge of a
 * worker that crashed between completing a task and publishing its usage. Publishing twice
 * is harmless (JetStream drops a repeated message id, ledger a repeated request id), so
 * workers sweeping at once need no coordination. Returns how many tasks it published.
 */
export async function republishUsage(deps: WorkerDependencies, options: { now: Date; limit: number }): Promise<number> {
  const tasks = await queryTasks(
    deps.pool,
    "video-unpublished-usage",
    `SELECT ${taskColumns} FROM video.tasks
     WHERE status = 'completed' AND usage_published_at IS NULL AND finished_at < $1
     ORDER BY finished_at
     LIMIT $2`,
    [new Date(options.now.getTime() - USAGE_SWEEP_GRACE_MS), options.limit],
  );
  let published = 0;
  for (const task of tasks) {
    try {
      const video = findVideoModel(deps.catalogue, task.model, task.modelGroup);
      if (await publishTaskUsage(deps, task, video, task.billedSeconds ?? task.durationSeconds)) published += 1;
    } catch (error) {
      deps.logger.error({ err: error, task_id: task.id }, "could not republish the usage of a completed video task");
    }
  }
  return published;
}
