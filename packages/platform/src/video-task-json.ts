import type { VideoTask } from "@gateway/proto/video/v1/video";

/**
 * A video task on the wire, as GET /v1/videos/generations/{id} answers it and as callbacks
 * carry it: the spec's id, status, created_at (Unix seconds), video_url when completed and
 * error (a string) when failed, plus model, duration and progress (0-100) when known.
 */
export function renderVideoTask(task: VideoTask) {
  return {
    id: task.id,
    object: "video.generation",
    status: task.status,
    created_at: task.createdAt,
    model: task.model,
    duration: task.durationSeconds,
    ...(task.progress !== undefined && { progress: task.progress }),
    ...(task.videoUrl !== undefined && { video_url: task.videoUrl }),
    ...(task.error !== undefined && { error: task.error }),
  };
}
