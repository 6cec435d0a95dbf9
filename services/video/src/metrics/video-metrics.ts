import { gatewayMeter, type SqlPool } from "@gateway/platform";
import type { Histogram } from "@opentelemetry/api";

// Seconds: video generations take from tens of seconds to the task time-out.
const TASK_SECONDS_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600];

/**
 * The video service's instruments, created once at start-up. Models are catalogue ids
 * (a submit for any other model is refused before a task exists).
 */
export class VideoMetrics {
  private readonly taskDuration: Histogram;

  constructor(pool: SqlPool, meter = gatewayMeter()) {
    this.taskDuration = meter.createHistogram("gateway_video_task_duration_seconds", {
      description: "From submit to the task's end, by model and status (completed, failed, timed_out)",
      unit: "s",
      advice: { explicitBucketBoundaries: TASK_SECONDS_BUCKETS },
    });
    // Read from Postgres at each collection: the queue is shared by every worker, so each
    // process reports the same figure (take max(), not sum(), across replicas).
    meter
      .createObservableGauge("gateway_video_queue_depth", {
        description: "Unfinished video tasks by status (pending, processing), across all workers",
      })
      .addCallback(async (result) => {
        const { rows } = await pool.query<{ status: string; count: number }>({
          name: "video-queue-depth",
          text: `SELECT status, count(*)::int AS count FROM video.tasks
                 WHERE status IN ('pending', 'processing') GROUP BY status`,
        });
        for (const status of ["pending", "processing"]) {
          result.observe(rows.find((row) => row.status === status)?.count ?? 0, { status });
        }
      });
  }

  taskEnded(task: { model: string; createdAt: Date }, status: "completed" | "failed" | "timed_out", now: Date): void {
    this.taskDuration.record((now.getTime() - task.createdAt.getTime()) / 1000, { model: task.model, status });
  }
}
