import type { ChatChunk } from "@gateway/proto/router/v1/chat";
import { fromGrpcError } from "@gateway/shared";
import type { ClientReadableStream } from "@grpc/grpc-js";
import type { Response } from "express";
import { copyRateLimitHeaders } from "../http/rate-limit-headers.js";
import { sendError } from "../http/send-error.js";
import type { RenderedResponse } from "../openai-wire/render-response.js";
import type { ResponseEvent, ResponseStreamEvents } from "../openai-wire/responses-stream-events.js";
import { eventStreamHeaders } from "./relay-stream.js";

// Responses events name themselves on an `event:` line as well as in `type`.
const frame = (event: ResponseEvent) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * Relays a chat stream as Responses events. As for chat, headers wait for the first chunk so
 * an early failure is a proper HTTP error; the stream ends after its terminal event, with no
 * `[DONE]`. `onFinished` runs (storing the response) before that terminal event is written,
 * so a client that retrieves the response right after the stream finds it.
 */
export function relayResponsesStream(
  call: ClientReadableStream<ChatChunk>,
  response: Response,
  events: ResponseStreamEvents,
  onFinished: (final: RenderedResponse) => Promise<void>,
) {
  let started = false;
  let finished = false;
  const write = (batch: ResponseEvent[]) => {
    let flowing = true;
    for (const event of batch) flowing = response.write(frame(event));
    return flowing;
  };
  const start = () => {
    if (started) return;
    started = true;
    response.writeHead(200, eventStreamHeaders);
    write(events.start());
  };
  const finish = (batch: ResponseEvent[]) => {
    if (finished) return;
    finished = true;
    write(batch);
    response.end();
  };

  copyRateLimitHeaders(call, response);
  response.on("close", () => {
    if (!finished) call.cancel();
  });
  call.on("data", (chunk: ChatChunk) => {
    start();
    if (!write(events.onChunk(chunk))) {
      call.pause();
      response.once("drain", () => call.resume());
    }
  });
  call.on("end", async () => {
    // A call that already failed may still end; its response is already written.
    if (finished || response.destroyed) return;
    start();
    const { events: tail, response: final } = events.finish();
    await onFinished(final);
    finish(tail);
  });
  call.on("error", (error) => {
    if (finished || response.destroyed) return;
    const gatewayError = fromGrpcError(error);
    if (!started) {
      finished = true;
      return sendError(response, gatewayError);
    }
    const body = gatewayError.toBody().error;
    finish(events.fail({ ...body, code: body.code ?? "server_error" }));
  });
}
