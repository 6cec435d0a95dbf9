import type { ChatChunk } from "@gateway/proto/router/v1/chat";
import type { StreamRendering } from "../http/relay-call.js";
import type { RenderedResponse } from "../openai-wire/render-response.js";
import type { ResponseEvent, ResponseStreamEvents } from "../openai-wire/responses-stream-events.js";
import { eventStreamHeaders } from "./data-frames.js";

// Responses events name themselves on an `event:` line as well as in `type`.
const frames = (events: ResponseEvent[]) =>
  events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");

/**
 * A chat stream as Responses events, ending after its terminal event with no `[DONE]`.
 * `onFinished` runs (storing the response) before that terminal event is written, so a
 * client that retrieves the response right after the stream finds it.
 */
export function responseEventFrames(
  events: ResponseStreamEvents,
  onFinished: (final: RenderedResponse) => Promise<void>,
): StreamRendering<ChatChunk> {
  return {
    open: () => ({ status: 200, headers: eventStreamHeaders, body: frames(events.start()) }),
    chunk: (chunk) => frames(events.onChunk(chunk)),
    close: async () => {
      const { events: tail, response } = events.finish();
      await onFinished(response);
      return frames(tail);
    },
    fail: (error) => {
      const body = error.toBody().error;
      return frames(events.fail({ ...body, code: body.code ?? "server_error" }));
    },
  };
}
