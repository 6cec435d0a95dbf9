import { fromGrpcError } from "@gateway/shared";
import type { ClientReadableStream } from "@grpc/grpc-js";
import type { Response } from "express";
import { copyRateLimitHeaders } from "../http/rate-limit-headers.js";
import { sendError } from "../http/send-error.js";

export const eventStreamHeaders = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

const frame = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

/**
 * Relays router chunks of any endpoint, each rendered by `render`, to the client as
 * Server-Sent Events, each as soon as it arrives. Headers wait for the first chunk, so a failure before any output is still a proper
 * HTTP error; a failure after it becomes an error frame the SDK raises. A client that
 * leaves cancels the gRPC call, which cancels the vendor request.
 */
export function relayStream<Chunk>(
  call: ClientReadableStream<Chunk>,
  response: Response,
  render: (chunk: Chunk) => unknown,
) {
  let started = false;
  let finished = false;
  const start = () => {
    if (started) return;
    started = true;
    response.writeHead(200, eventStreamHeaders);
  };
  const finish = (tail?: string) => {
    if (finished) return;
    finished = true;
    if (tail) response.write(tail);
    response.end();
  };

  copyRateLimitHeaders(call, response);
  response.on("close", () => {
    if (!finished) call.cancel();
  });
  call.on("data", (chunk: Chunk) => {
    start();
    if (!response.write(frame(render(chunk)))) {
      call.pause();
      response.once("drain", () => call.resume());
    }
  });
  call.on("end", () => {
    start();
    finish("data: [DONE]\n\n");
  });
  call.on("error", (error) => {
    if (finished || response.destroyed) return;
    const gatewayError = fromGrpcError(error);
    if (!started) {
      finished = true;
      return sendError(response, gatewayError);
    }
    finish(frame(gatewayError.toBody()));
  });
}
