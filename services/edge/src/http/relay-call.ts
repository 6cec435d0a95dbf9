import type { OutgoingHttpHeaders } from "node:http";
import { fromGrpcError, GatewayError, serverError, serviceUnavailable, shutdownCutOf } from "@gateway/platform";
import type { ClientReadableStream } from "@grpc/grpc-js";
import type { Response } from "express";
import { copyRateLimitHeaders } from "./rate-limit-headers.js";
import { sendError } from "./send-error.js";

export interface AnswerHead {
  status: number;
  headers: OutgoingHttpHeaders;
  // Written right after the head (a stream's opening events).
  body?: string;
  // The head is the whole answer (a 416): the call is cancelled.
  complete?: boolean;
}

/** What one endpoint makes of a router stream; the relay owns when each part is written. */
export interface StreamRendering<Chunk> {
  /** The head of a successful answer, given its first chunk (none when the call ends without one). */
  open(first: Chunk | undefined): AnswerHead | GatewayError;
  chunk(chunk: Chunk): string | Buffer;
  /** The last bytes of a call that ended well; may first do work (storing a Responses answer). */
  close(): string | Promise<string>;
  /** The last bytes after a failure once the head is out; undefined cuts the connection instead. */
  fail(error: GatewayError): string | undefined;
}

/**
 * Relays a server-streaming gRPC call to an HTTP response. One state machine decides what
 * each event means, so data, error, end and the client leaving may come in any order (grpc-js
 * emits `end` after `error`; a client may leave while an answer is being stored) and each
 * answer is written exactly once:
 *
 * - waiting: nothing written. The first chunk writes the head; a failure is a proper HTTP
 *   error (404, 429, 503) with its status, since no header is out yet.
 * - streaming: chunks are written as they arrive, pausing the call while the client's
 *   socket is full. A failure becomes the rendering's failure frame (or a cut connection).
 * - closing: the call ended well and the rendering's tail is being made.
 * - done: everything later is ignored.
 *
 * The client leaving in any state but done cancels the call, which cancels the vendor request;
 * so does a draining edge's grace period ending, which answers like a failure (router still
 * reports the usage of what was delivered).
 * `status` needs no handling: grpc-js emits `error` before it and `end` only after it.
 */
export function relayCall<Chunk>(
  call: ClientReadableStream<Chunk>,
  response: Response,
  rendering: StreamRendering<Chunk>,
): void {
  let state: "waiting" | "streaming" | "closing" | "done" = "waiting";
  const write = (bytes: string | Buffer | undefined) => (bytes ? response.write(bytes) : true);
  const finish = (tail: string | undefined) => {
    state = "done";
    if (response.destroyed || response.writableEnded) return;
    if (tail === undefined) response.destroy();
    else response.end(tail);
  };
  /** Writes the head; false when nothing more is to be written. */
  const open = (first: Chunk | undefined) => {
    const head = rendering.open(first);
    if (head instanceof GatewayError) {
      state = "done";
      sendError(response, head);
      call.cancel();
      return false;
    }
    response.writeHead(head.status, head.headers);
    write(head.body);
    state = "streaming";
    if (!head.complete) return true;
    finish("");
    call.cancel();
    return false;
  };

  const cut = () => {
    if (state === "done" || state === "closing") return;
    const error = serviceUnavailable("This gateway instance shut down before the answer was complete. Please retry.");
    if (state === "waiting") {
      state = "done";
      sendError(response, error);
    } else {
      finish(rendering.fail(error));
    }
    call.cancel();
  };
  const shutdownCut = shutdownCutOf(response);
  shutdownCut?.addEventListener("abort", cut, { once: true });

  copyRateLimitHeaders(call, response);
  response.on("close", () => {
    shutdownCut?.removeEventListener("abort", cut);
    if (state === "done") return;
    state = "done";
    call.cancel();
  });
  call.on("data", (chunk: Chunk) => {
    if (state === "done" || state === "closing") return;
    if (state === "waiting" && !open(chunk)) return;
    if (!write(rendering.chunk(chunk))) {
      call.pause();
      response.once("drain", () => call.resume());
    }
  });
  call.on("error", (error) => {
    if (state === "done" || state === "closing") return;
    const gatewayError = fromGrpcError(error);
    if (state === "waiting") {
      state = "done";
      sendError(response, gatewayError);
      return;
    }
    finish(rendering.fail(gatewayError));
  });
  call.on("end", () => {
    if (state === "done" || state === "closing") return;
    if (state === "waiting" && !open(undefined)) return;
    state = "closing";
    Promise.resolve()
      .then(() => rendering.close())
      .then(finish, (error: unknown) => {
        finish(rendering.fail(serverError()));
        // Still a bug to see: it reaches the process's unhandled-rejection log with the request id.
        throw error;
      });
  });
}
