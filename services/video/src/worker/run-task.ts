import { setTimeout as sleep } from "node:timers/promises";
import { publishTaskUsage } from "../billing/publish-task-usage.js";
import type { VideoTask } from "../database.js";
import { channelOf, findVideoModel, type VideoModel } from "../tasks/find-video-model.js";
import { storageKeyOf } from "../tasks/task-rules.js";
import { VendorCallError, type VendorJob } from "../vendor/openai-videos-client.js";
import { withRetries } from "./retry.js";
import { TaskLease } from "./task-lease.js";
import type { WorkerDependencies } from "./worker-dependencies.js";

const CREATE_ATTEMPTS = 3;
// Consecutive failed polls tolerated before the task is failed.
const POLL_ATTEMPTS = 5;
const POLL_GROWTH = 1.5;

/** What the client reads in `error`: the vendor's words for its own failures, never internals. */
function failureMessage(error: unknown): string {
  if (error instanceof VendorCallError) return `The video provider failed: ${error.message}`;
  return "The video generation failed inside the gateway.";
}

const vendorFailure = (job: VendorJob) =>
  `The video provider failed: ${job.error?.message ?? "the generation did not succeed"}${job.error?.code ? ` (${job.error.code})` : ""}.`;

/**
 * Drives one claimed task to its end: creates the vendor job unless one is recorded (storing
 * its id before the first poll, so a worker taking over resumes that job instead of paying for
 * another), polls with growing waits, copies the MP4 into gateway storage, marks the task
 * completed and bills the delivered seconds (marking the task once the usage event is durable),
 * or marks it failed (not billed). When the lease is lost (time-out, or a takeover after this
 * worker stalled) it stops without writing anything.
 */
export async function runTask(deps: WorkerDependencies, task: VideoTask, stopping: AbortSignal): Promise<void> {
  const lease = new TaskLease(deps, task.id, stopping);
  const log = deps.logger.child({ task_id: task.id, worker_id: deps.workerId });
  try {
    const video = findVideoModel(deps.catalogue, task.model, task.modelGroup);
    const job = await pollUntilDone(deps, lease, task, video);
    if (job.status === "failed") {
      await finish(deps, lease, task, { status: "failed", error: vendorFailure(job) });
      log.info({ vendor_job_id: job.id }, "video task failed at the vendor");
      return;
    }
    await complete(deps, lease, task, video, job);
    log.info({ vendor_job_id: job.id }, "video task completed");
  } catch (error) {
    if (stopping.aborted) {
      await lease.handBack().catch(() => undefined);
      log.info("worker stopping; video task handed back");
      return;
    }
    if (lease.signal.aborted) {
      log.info("video task no longer held by this worker; dropped");
      return;
    }
    log.warn({ err: error }, "video task failed");
    await finish(deps, lease, task, { status: "failed", error: failureMessage(error) }).catch((failure: unknown) =>
      log.error({ err: failure }, "could not record the failure; the lease will expire and the task be retried"),
    );
  } finally {
    lease.release();
  }
}

async function pollUntilDone(
  deps: WorkerDependencies,
  lease: TaskLease,
  task: VideoTask,
  video: VideoModel,
): Promise<VendorJob> {
  const channel = channelOf(video, task.channel);
  const signal = lease.signal;
  let jobId = task.vendorJobId;
  if (!jobId) {
    const created = await withRetries(
      () =>
        deps.vendor.create(
          channel,
          {
            model: video.rules.vendor_model,
            prompt: task.prompt,
            seconds: task.durationSeconds,
            size: video.rules.size,
          },
          signal,
        ),
      { attempts: CREATE_ATTEMPTS, baseDelayMs: deps.pollInitialMs, signal },
    );
    jobId = created.id;
    if (!(await lease.update({ vendorJobId: jobId }))) {
      // Lost the task while creating: nobody will poll this job, so do not let it run (and bill) on.
      await deps.vendor.cancel(channel, jobId, AbortSignal.timeout(10_000)).catch(() => undefined);
      throw new Error("lease lost");
    }
  }
  let delay = deps.pollInitialMs;
  for (;;) {
    const id = jobId;
    const job = await withRetries(() => deps.vendor.retrieve(channel, id, signal), {
      attempts: POLL_ATTEMPTS,
      baseDelayMs: delay,
      signal,
    });
    if (job.status === "completed" || job.status === "failed") return job;
    if (job.progress != null && job.progress !== task.progress) {
      if (!(await lease.update({ progress: job.progress }))) throw new Error("lease lost");
      task.progress = job.progress;
    }
    await sleep(delay, undefined, { signal });
    delay = Math.min(Math.round(delay * POLL_GROWTH), deps.pollMaxMs);
  }
}

async function complete(
  deps: WorkerDependencies,
  lease: TaskLease,
  task: VideoTask,
  video: VideoModel,
  job: VendorJob,
): Promise<void> {
  const channel = channelOf(video, task.channel);
  const key = storageKeyOf(task.id);
  const content = await deps.vendor.download(channel, job.id, lease.signal);
  const { bytes } = await deps.storage.put(key, content);
  // Bill what the vendor says it delivered; fall back to what was asked for.
  const reported = Number(job.seconds);
  const seconds = Number.isInteger(reported) && reported > 0 ? reported : task.durationSeconds;
  const won = await finish(deps, lease, task, {
    status: "completed",
    progress: 100,
    storageKey: key,
    byteSize: BigInt(bytes),
    billedSeconds: seconds,
  });
  if (!won) {
    // Timed out while downloading: the task is failed and must not point at (or keep) a file.
    await deps.storage.remove(key);
    throw new Error("lease lost");
  }
  // The task is completed whatever happens next: a charge left unmarked is the usage sweep's to send.
  await publishTaskUsage(deps, task, video, seconds).catch((error: unknown) =>
    deps.logger.warn({ err: error, task_id: task.id }, "could not mark the usage published; the sweep will resend it"),
  );
}

/** The final write, with the callback (if any) queued for delivery in the same statement. */
async function finish(
  deps: WorkerDependencies,
  lease: TaskLease,
  task: VideoTask,
  data: {
    status: "completed" | "failed";
    error?: string;
    progress?: number;
    storageKey?: string;
    byteSize?: bigint;
    billedSeconds?: number;
  },
): Promise<boolean> {
  const now = deps.clock.now();
  const written = await lease.update({
    ...data,
    finishedAt: now,
    leaseUntil: null,
    ...(task.callbackUrl && { callbackState: "pending", callbackNextAt: now }),
  });
  if (written) deps.metrics.taskEnded(task, data.status, now);
  if (written && data.status === "failed") await deps.reservations.release(task);
  return written;
}
