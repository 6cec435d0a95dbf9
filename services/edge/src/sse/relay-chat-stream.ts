import type { ChatChunk } from "@gateway/proto/router/v1/chat";
import type { ClientReadableStream } from "@grpc/grpc-js";
import type { Response } from "express";
import { renderChunk } from "../openai-wire/render-chat.js";
import { relayStream } from "./relay-stream.js";

/** Relays chat chunks as `chat.completion.chunk` Server-Sent Events. */
export function relayChatStream(
  call: ClientReadableStream<ChatChunk>,
  response: Response,
  rendering: { includeUsage: boolean; legacyFunctions: boolean },
) {
  relayStream(call, response, (chunk) => renderChunk(chunk, rendering.includeUsage, rendering.legacyFunctions));
}
