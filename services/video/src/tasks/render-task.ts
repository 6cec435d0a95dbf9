import type { VideoTask as VideoTaskMessage } from "@gateway/proto/video/v1/video";
import type { VideoTask } from "../database.js";
import { contentUrl } from "../links/signed-url.js";

export interface LinkSettings {
  signingKey: string;
  ttlSeconds: number;
}

/**
 * A task as edge shows it. A completed task gets a fresh signed link each time, valid for the
 * link TTL but never past the task's own 24-hour lifetime.
 */
export function renderTask(
  task: VideoTask,
  links: LinkSettings,
  nowMs: number,
  publicBaseUrl: string,
): VideoTaskMessage {
  const completed = task.status === "completed";
  const expires = Math.floor(Math.min(nowMs / 1000 + links.ttlSeconds, task.expiresAt.getTime() / 1000));
  return {
    id: task.id,
    status: task.status,
    createdAt: Math.floor(task.createdAt.getTime() / 1000),
    videoUrl: completed
      ? contentUrl(links.signingKey, publicBaseUrl || task.publicBaseUrl, task.id, expires)
      : undefined,
    error: task.status === "failed" ? (task.error ?? "The video generation failed.") : undefined,
    progress: task.progress ?? undefined,
    durationSeconds: task.durationSeconds,
    model: task.model,
  };
}
