import type { StreamRendering } from "../http/relay-call.js";

export const eventStreamHeaders = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

const frame = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

/**
 * Chat-style Server-Sent Events (chat and legacy completions): each chunk, as `render` makes
 * it, in a `data:` frame; `data: [DONE]` last; a failure after output an error frame, which
 * the SDKs raise.
 */
export function dataFrames<Chunk>(render: (chunk: Chunk) => unknown): StreamRendering<Chunk> {
  return {
    open: () => ({ status: 200, headers: eventStreamHeaders }),
    chunk: (chunk) => frame(render(chunk)),
    close: () => "data: [DONE]\n\n",
    fail: (error) => frame(error.toBody()),
  };
}
