import type { CompletionChunk, CompletionRequest } from "@gateway/proto/router/v1/completions";
import { completionRequestLog } from "../request-log/request-bodies.js";
import { chatStreamHandler, combinedUsage, pumpChatStream, StreamTally } from "./chat-stream.js";
import { chatRequestsFor, checkCompletionRequest, TextChunkMapper } from "./completion-shape.js";
import { completionsEndpoint } from "./create-completion.js";
import { admitRequest } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

/**
 * A streamed text completion. Prompts stream one after another, so the vendor stream of a
 * later prompt is still retried and failed over until its first chunk; choices carry their
 * OpenAI index, so the client can tell them apart.
 */
export function streamCompletion(deps: RouterDependencies) {
  return chatStreamHandler<CompletionRequest, CompletionChunk>(
    deps,
    "router.stream_completion",
    async (request, signal) => {
      const chats = chatRequestsFor(request);
      const facts = await admitRequest(deps, chats, completionsEndpoint, (model) =>
        checkCompletionRequest(request, model),
      );
      const tallies = chats.map((chat) => new StreamTally(chat, facts.model));
      const created = Math.floor(facts.startedAt / 1000);
      const identity = { id: `cmpl-${facts.caller.requestId}`, created, model: facts.model.id };
      return {
        facts,
        tallies,
        logged: () => completionRequestLog(request),
        async relay(emit) {
          for (const [promptIndex, chat] of chats.entries()) {
            const mapper = new TextChunkMapper(request, promptIndex);
            await pumpChatStream(deps, chat, facts, tallies[promptIndex]!, signal, async (chunk) => {
              const choices = mapper.map(chunk);
              if (choices.length > 0) await emit({ ...identity, choices });
            });
          }
          if (request.includeUsage) await emit({ ...identity, choices: [], usage: combinedUsage(tallies).usage });
        },
      };
    },
  );
}
