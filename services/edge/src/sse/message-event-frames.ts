import type { ChatChunk } from "@gateway/proto/router/v1/chat";
import { anthropicErrorBody } from "../anthropic-wire/anthropic-errors.js";
import type { MessageEvent, MessageStreamEvents } from "../anthropic-wire/message-stream-events.js";
import type { StreamRendering } from "../http/relay-call.js";
import { eventStreamHeaders } from "./data-frames.js";

// Anthropic's events name themselves on an `event:` line as well as in `type`.
const frames = (events: MessageEvent[]) =>
  events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");

/** A chat stream as Anthropic Messages events; a failure once the head is out is an `error` event. */
export function messageEventFrames(events: MessageStreamEvents, requestId: string): StreamRendering<ChatChunk> {
  return {
    open: (first) => ({
      status: 200,
      headers: { ...eventStreamHeaders, "request-id": requestId },
      body: frames(events.start(first)),
    }),
    chunk: (chunk) => frames(events.onChunk(chunk)),
    close: () => frames(events.finish()),
    fail: (error) => frames([anthropicErrorBody(error, requestId)]),
  };
}
