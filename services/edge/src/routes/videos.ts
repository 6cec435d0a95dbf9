import {
  callUnary,
  fromGrpcError,
  invalidRequest,
  renderVideoTask,
  serverError,
  tracedMetadata,
} from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { VideoContentChunk, VideoServiceClient, VideoTask } from "@gateway/proto/video/v1/video";
import type { Request, Response } from "express";
import type { PublicBaseUrl } from "../http/public-base-url.js";
import { relayCall, type StreamRendering } from "../http/relay-call.js";
import { validateBody } from "../openai-wire/validate-body.js";
import { pollAfterSeconds, videoGenerationSchema } from "../openai-wire/video-request-schema.js";

const videoDeadlineMs = 15_000;
const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

/** Writes a task; unfinished ones carry the spec's recommended polling interval as Retry-After. */
function sendTask(response: Response, task: VideoTask): void {
  if (task.status === "pending" || task.status === "processing") {
    response.setHeader("retry-after", String(pollAfterSeconds(task.durationSeconds)));
  }
  response.json(renderVideoTask(task));
}

/** POST /v1/videos/generations: records the task and answers `{id, status: "pending", created_at}` at once. */
export function submitVideo(video: VideoServiceClient, baseUrlOf: PublicBaseUrl) {
  return async (request: Request, response: Response) => {
    const body = validateBody(videoGenerationSchema, request.body);
    const idempotencyKey = request.get("idempotency-key") ?? "";
    if (idempotencyKey && !idempotencyKeyPattern.test(idempotencyKey)) {
      throw invalidRequest("Invalid 'Idempotency-Key' header: 1-255 printable ASCII characters.", "Idempotency-Key");
    }
    const task = await callUnary(
      video.submitVideo.bind(video),
      {
        caller: response.locals.caller as Caller,
        model: body.model,
        prompt: body.prompt,
        durationSeconds: body.duration,
        idempotencyKey,
        callbackUrl: body.callback_url ?? "",
        publicBaseUrl: baseUrlOf(request),
      },
      videoDeadlineMs,
    ).catch((error: unknown) => {
      throw fromGrpcError(error);
    });
    sendTask(response, task);
  };
}

/** GET /v1/videos/generations/{task_id}. */
export function getVideo(video: VideoServiceClient, baseUrlOf: PublicBaseUrl) {
  return async (request: Request, response: Response) => {
    const task = await callUnary(
      video.getVideo.bind(video),
      {
        caller: response.locals.caller as Caller,
        taskId: String(request.params.taskId),
        publicBaseUrl: baseUrlOf(request),
      },
      videoDeadlineMs,
    ).catch((error: unknown) => {
      throw fromGrpcError(error);
    });
    sendTask(response, task);
  };
}

/** A stored video's bytes: the video service's head message decides 200, 206 or 416. */
const videoBytes: StreamRendering<VideoContentChunk> = {
  open: (head) => {
    // The video service always sends a head before any bytes; an answer without one is its bug.
    if (!head) return serverError("The video service answered without a head.");
    const common = { "accept-ranges": "bytes", "cache-control": "private, max-age=3600" };
    if (head.unsatisfiable) {
      return { status: 416, headers: { ...common, "content-range": `bytes */${head.totalSize}` }, complete: true };
    }
    const length = head.totalSize === 0 ? 0 : head.rangeEnd - head.rangeStart + 1;
    const headers = { ...common, "content-type": head.contentType, "content-length": String(length) };
    if (!head.partial) return { status: 200, headers };
    const range = `bytes ${head.rangeStart}-${head.rangeEnd}/${head.totalSize}`;
    return { status: 206, headers: { ...headers, "content-range": range } };
  },
  chunk: (chunk) => chunk.data,
  close: () => "",
  // The length is already declared: a cut connection is how the client learns the body is short.
  fail: () => undefined,
};

/**
 * GET /v1/videos/generations/{task_id}/content?expires&signature: the MP4 behind a signed
 * video_url, with no API key (the signature is the credential, checked by the video service).
 * Supports single byte ranges: 206 with Content-Range, 416 when unsatisfiable.
 */
export function videoContent(video: VideoServiceClient) {
  return (request: Request, response: Response) => {
    const expires = Number(request.query.expires);
    const call = video.readVideoContent(
      {
        taskId: String(request.params.taskId),
        expires: Number.isSafeInteger(expires) ? expires : 0,
        signature: typeof request.query.signature === "string" ? request.query.signature : "",
        range: request.get("range") ?? "",
      },
      tracedMetadata(),
    );
    relayCall(call, response, videoBytes);
  };
}
