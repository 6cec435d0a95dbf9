import type { ChatChunk, ChatRequest } from "@gateway/proto/router/v1/chat";
import { chatRequestLog } from "../request-log/request-bodies.js";
import { chatStreamHandler, pumpChatStream, StreamTally } from "./chat-stream.js";
import { admitRequest } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

/** A streamed chat completion: chunks go to edge as they arrive; usage is reported however it ends. */
export function streamChatCompletion(deps: RouterDependencies) {
  return chatStreamHandler<ChatRequest, ChatChunk>(deps, "router.stream_chat_completion", async (request, signal) => {
    const facts = await admitRequest(deps, [request], "/v1/chat/completions");
    const tally = new StreamTally(request, facts.model);
    return {
      facts,
      tallies: [tally],
      logged: () => chatRequestLog(request),
      async relay(emit) {
        const identity = await pumpChatStream(deps, request, facts, tally, signal, emit);
        // Every vendor's usage is re-emitted in one place: a final chunk with no choices.
        if (request.includeUsage && identity) await emit({ ...identity, choices: [], usage: tally.usage().usage });
      },
    };
  });
}
