import { randomUUID } from "node:crypto";

/** One simulated generation. Its state follows from the clock: queued, in progress, then done. */
export interface VideoJob {
  id: string;
  model: string;
  prompt: string;
  seconds: number;
  size: string;
  createdAtMs: number;
  /** How long the generation takes. */
  processingMs: number;
  /** Ends failed instead of completed ([sim:video_fail]). */
  fails: boolean;
  /** Set by DELETE: the job is cancelled and answers 404 from then on. */
  deletedAtMs: number | undefined;
}

// The first tenth of the processing time the job waits in the queue.
const QUEUED_SHARE = 0.1;

export function jobStatus(job: VideoJob, nowMs: number) {
  const elapsed = nowMs - job.createdAtMs;
  if (elapsed >= job.processingMs) return { status: job.fails ? "failed" : "completed", progress: 100 } as const;
  if (elapsed < job.processingMs * QUEUED_SHARE) return { status: "queued", progress: 0 } as const;
  return { status: "in_progress", progress: Math.min(99, Math.floor((elapsed / job.processingMs) * 100)) } as const;
}

/** Every job ever created (deleted ones included), so tests can count vendor jobs exactly. */
export class VideoJobStore {
  private readonly jobs = new Map<string, VideoJob>();

  create(fields: Omit<VideoJob, "id" | "createdAtMs" | "deletedAtMs">, nowMs = Date.now()): VideoJob {
    const job = {
      ...fields,
      id: `video_${randomUUID().replaceAll("-", "")}`,
      createdAtMs: nowMs,
      deletedAtMs: undefined,
    };
    this.jobs.set(job.id, job);
    return job;
  }

  /** A live (not deleted) job. */
  get(id: string): VideoJob | undefined {
    const job = this.jobs.get(id);
    return job && job.deletedAtMs === undefined ? job : undefined;
  }

  delete(id: string, nowMs = Date.now()): boolean {
    const job = this.get(id);
    if (!job) return false;
    job.deletedAtMs = nowMs;
    return true;
  }

  list(): VideoJob[] {
    return [...this.jobs.values()];
  }

  clear(): number {
    const count = this.jobs.size;
    this.jobs.clear();
    return count;
  }
}
