import { once } from "node:events";
import { cancellationSignal, GatewayError, runInCallContext, type SqlPool, toGrpcError } from "@gateway/platform";
import type { ReadVideoContentRequest, VideoContentChunk } from "@gateway/proto/video/v1/video";
import type { ServerWritableStream, ServiceError } from "@grpc/grpc-js";
import type { Clock } from "../clock.js";
import { verifyContentSignature } from "../links/signed-url.js";
import type { VideoStorage } from "../storage/video-storage.js";
import { taskNotFound } from "../tasks/get-video.js";
import { isTaskId } from "../tasks/task-rules.js";
import { findTask } from "../tasks/task-sql.js";
import { resolveRange } from "./byte-range.js";

const CHUNK_BYTES = 256 * 1024;

const forbidden = (code: string, message: string) => new GatewayError(403, "invalid_request_error", code, message);

export interface ContentDependencies {
  pool: SqlPool;
  clock: Clock;
  storage: VideoStorage;
  signingKey: string;
}

type ContentCall = ServerWritableStream<ReadVideoContentRequest, VideoContentChunk>;

async function write(call: ContentCall, chunk: Partial<VideoContentChunk>, cancelled: AbortSignal): Promise<void> {
  const message: VideoContentChunk = {
    totalSize: 0,
    rangeStart: 0,
    rangeEnd: 0,
    partial: false,
    unsatisfiable: false,
    contentType: "",
    data: Buffer.alloc(0),
    ...chunk,
  };
  // Respect HTTP/2 flow control: a slow downloader slows the file read instead of filling memory.
  // A downloader that leaves never drains: the wait ends (throws) when the call is cancelled.
  if (!call.write(message)) await once(call, "drain", { signal: cancelled });
}

/**
 * Streams a stored video behind a signed link: a header message (sizes and range) and then
 * the bytes. Edge turns it into 200, 206 or 416 with Content-Range and Accept-Ranges.
 */
async function serve(deps: ContentDependencies, call: ContentCall): Promise<void> {
  const cancelled = cancellationSignal(call);
  const { taskId, expires, signature, range } = call.request;
  if (!isTaskId(taskId) || !verifyContentSignature(deps.signingKey, taskId, expires, signature)) {
    throw forbidden("invalid_signature", "This video link is not valid.");
  }
  const now = deps.clock.now();
  if (expires * 1000 < now.getTime()) {
    throw forbidden("link_expired", "This video link has expired. Retrieve the task again for a fresh video_url.");
  }
  const task = await findTask(deps.pool, taskId);
  if (!task || task.expiresAt <= now || task.status !== "completed" || !task.storageKey) throw taskNotFound(taskId);
  const size = await deps.storage.size(task.storageKey);
  if (size === undefined) throw taskNotFound(taskId);

  const answer = resolveRange(range, size);
  if (answer.kind === "unsatisfiable") {
    await write(call, { totalSize: size, unsatisfiable: true, contentType: "video/mp4" }, cancelled);
    return;
  }
  const start = answer.kind === "partial" ? answer.start : 0;
  const end = answer.kind === "partial" ? answer.end : size - 1;
  await write(
    call,
    {
      totalSize: size,
      rangeStart: start,
      rangeEnd: end,
      partial: answer.kind === "partial",
      contentType: "video/mp4",
    },
    cancelled,
  );
  if (size === 0) return;
  const file = await deps.storage.read(task.storageKey, start, end);
  // The downloader may have left while the store was answering.
  if (cancelled.aborted) {
    file.destroy();
    return;
  }
  cancelled.addEventListener("abort", () => file.destroy());
  for await (const piece of file) {
    const bytes = piece as Buffer;
    for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) {
      await write(call, { data: bytes.subarray(offset, offset + CHUNK_BYTES) }, cancelled);
    }
  }
}

export function readVideoContent(deps: ContentDependencies) {
  return (call: ContentCall) => {
    runInCallContext(call.metadata, () => serve(deps, call)).then(
      () => call.end(),
      (error: unknown) => call.emit("error", toGrpcError(error) as ServiceError),
    );
  };
}
