import { applyLeadingFaults, resolveFault } from "../../faults.js";
import { type Exchange, type SimulatorState, sendJson, writeHead } from "../../http.js";
import { isRecord } from "../../json.js";
import { requireApiKey, sendOpenAIError, sendStatusFault } from "../errors.js";
import { playableMp4 } from "./mp4.js";
import { jobStatus, type VideoJob } from "./video-jobs.js";

// OpenAI's videos API (PROTOCOLS.md A12), JSON bodies only (no multipart, no input_reference).
// One deliberate difference: `seconds` may be any whole number of seconds from 1 to 60, not
// only "4", "8" and "12", because the gateway sells 5, 10, 15 and 20 second videos.

const sizes = new Set(["720x1280", "1280x720", "1024x1792", "1792x1024"]);
const longestPrompt = 32_000;
/** Wall-clock seconds a job takes per second of video, unless SIMULATOR_VIDEO_SECONDS_PER_SECOND says otherwise. */
export const DEFAULT_VIDEO_SECONDS_PER_SECOND = 0.1;

class VideoRequestError extends Error {
  constructor(
    message: string,
    readonly param: string,
  ) {
    super(message);
  }
}

function readCreate(body: unknown) {
  if (!isRecord(body)) throw new VideoRequestError("The body must be a JSON object.", "body");
  const { prompt, model = "sora-2", seconds = "4", size = "720x1280" } = body;
  if (typeof prompt !== "string" || prompt === "")
    throw new VideoRequestError("Missing required parameter: 'prompt'.", "prompt");
  if (prompt.length > longestPrompt)
    throw new VideoRequestError(`'prompt' is longer than ${longestPrompt} characters.`, "prompt");
  if (typeof model !== "string" || model === "") throw new VideoRequestError("Invalid 'model'.", "model");
  const count = typeof seconds === "string" && /^\d+$/.test(seconds) ? Number(seconds) : Number.NaN;
  if (!(count >= 1 && count <= 60)) throw new VideoRequestError("Invalid 'seconds': a string of 1 to 60.", "seconds");
  if (typeof size !== "string" || !sizes.has(size)) {
    throw new VideoRequestError(`Invalid 'size': one of ${[...sizes].join(", ")}.`, "size");
  }
  return { prompt, model, seconds: count, size };
}

/** OpenAI's VideoResource. */
function resource(job: VideoJob, nowMs: number) {
  const { status, progress } = jobStatus(job, nowMs);
  const finished = status === "completed" || status === "failed";
  return {
    id: job.id,
    object: "video",
    model: job.model,
    status,
    progress,
    created_at: Math.floor(job.createdAtMs / 1000),
    completed_at: finished ? Math.floor((job.createdAtMs + job.processingMs) / 1000) : null,
    expires_at: null,
    prompt: job.prompt,
    size: job.size,
    seconds: String(job.seconds),
    quality: "standard",
    remixed_from_video_id: null,
    error:
      status === "failed" ? { code: "video_generation_failed", message: "Simulated video generation failure." } : null,
  };
}

const jobIdOf = (path: string) => /^\/v1\/videos\/(video_[0-9a-f]+)(?:\/content)?$/.exec(path)?.[1] ?? "";

function findJob(exchange: Exchange, state: SimulatorState): VideoJob | undefined {
  const job = state.videos.get(jobIdOf(exchange.path));
  if (!job) sendOpenAIError(exchange, 404, `Video '${jobIdOf(exchange.path)}' not found.`, { param: "video_id" });
  return job;
}

/**
 * POST /v1/videos. Directives in the prompt (and queued faults for the model) apply:
 * status/delay/hang fail the create call itself, `[sim:video_ms=N]` sets how long the job
 * takes, `[sim:video_fail]` makes it end failed.
 */
export async function createVideo(exchange: Exchange, state: SimulatorState): Promise<void> {
  if (!requireApiKey(exchange)) return;
  let request: ReturnType<typeof readCreate>;
  try {
    request = readCreate(exchange.body);
  } catch (error) {
    if (!(error instanceof VideoRequestError)) throw error;
    sendOpenAIError(exchange, 400, error.message, { param: error.param });
    return;
  }
  const apiKey = exchange.request.headers.authorization?.replace(/^Bearer\s+/i, "");
  const fault = resolveFault(state.faults, request.model, request.prompt, apiKey);
  if (!(await applyLeadingFaults(exchange, fault, sendStatusFault))) return;
  const perSecond = state.config.videoSecondsPerSecond ?? DEFAULT_VIDEO_SECONDS_PER_SECOND;
  const job = state.videos.create({
    ...request,
    processingMs: fault.videoMs ?? Math.round(request.seconds * perSecond * 1000),
    fails: fault.videoFail === true,
  });
  sendJson(exchange, 200, resource(job, Date.now()));
}

/** GET /v1/videos/{id}. */
export function retrieveVideo(exchange: Exchange, state: SimulatorState): void {
  if (!requireApiKey(exchange)) return;
  const job = findJob(exchange, state);
  if (job) sendJson(exchange, 200, resource(job, Date.now()));
}

/** GET /v1/videos/{id}/content: the MP4, once the job completed. */
export async function downloadVideo(exchange: Exchange, state: SimulatorState): Promise<void> {
  if (!requireApiKey(exchange)) return;
  const job = findJob(exchange, state);
  if (!job) return;
  if (jobStatus(job, Date.now()).status !== "completed") {
    sendOpenAIError(exchange, 400, "The video is not ready: its status is not completed.", { param: "video_id" });
    return;
  }
  const file = await playableMp4(job);
  writeHead(exchange, 200, { "content-type": "video/mp4", "content-length": file.length });
  exchange.response.end(file);
}

/** DELETE /v1/videos/{id}: cancels the job; it answers 404 afterwards. */
export function deleteVideo(exchange: Exchange, state: SimulatorState): void {
  if (!requireApiKey(exchange)) return;
  const job = findJob(exchange, state);
  if (!job) return;
  state.videos.delete(job.id);
  sendJson(exchange, 200, { id: job.id, object: "video.deleted", deleted: true });
}

/** GET /_sim/videos: every job the simulator created, deleted ones too, for tests to count. */
export function listVideoJobs(exchange: Exchange, state: SimulatorState): void {
  const now = Date.now();
  sendJson(exchange, 200, {
    data: state.videos.list().map((job) => ({
      id: job.id,
      model: job.model,
      prompt: job.prompt,
      seconds: job.seconds,
      size: job.size,
      status: jobStatus(job, now).status,
      deleted: job.deletedAtMs !== undefined,
      created_at_ms: job.createdAtMs,
    })),
  });
}

export function clearVideoJobs(exchange: Exchange, state: SimulatorState): void {
  sendJson(exchange, 200, { cleared: state.videos.clear() });
}
