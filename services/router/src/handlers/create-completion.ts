import { UsageOutcome } from "@gateway/billing";
import { inSpan, type UnaryContext } from "@gateway/platform";
import type { Completion, CompletionRequest } from "@gateway/proto/router/v1/completions";
import { textAnswerLog } from "../request-log/answer-bodies.js";
import { completionRequestLog } from "../request-log/request-bodies.js";
import { sendHeadersBeforeVendor } from "./call-headers.js";
import { chatRequestsFor, checkCompletionRequest, textChoicesOf } from "./completion-shape.js";
import { completeChat } from "./create-chat-completion.js";
import { publishFailure, publishUsage } from "./publish-usage.js";
import { admitRequest } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

export const completionsEndpoint = "/v1/completions";

/** A signal that fires when the client leaves or when `abort` is called (a sibling prompt failed). */
function linkedAbort(signal: AbortSignal) {
  const controller = new AbortController();
  signal.addEventListener("abort", () => controller.abort(), { once: true });
  return controller;
}

/**
 * A unary text completion: every prompt runs as a chat request at once through the chat
 * path (adapters, failover), and the answers are billed as one request.
 */
export function createCompletion(deps: RouterDependencies) {
  return async (request: CompletionRequest, context: UnaryContext): Promise<Completion> => {
    const { signal } = context;
    const chats = chatRequestsFor(request);
    const facts = await admitRequest(deps, chats, completionsEndpoint, (model) =>
      checkCompletionRequest(request, model),
    );
    await sendHeadersBeforeVendor(context, facts);
    const logged = () => completionRequestLog(request);
    return inSpan("router.completion", { "gateway.model": facts.model.id }, async () => {
      const siblings = linkedAbort(signal);
      try {
        const results = await Promise.all(
          chats.map((chat) =>
            completeChat(deps, chat, facts, siblings.signal).catch((error: unknown) => {
              siblings.abort();
              throw error;
            }),
          ),
        );
        const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
        for (const { completion } of results) {
          usage.promptTokens += completion.usage.promptTokens;
          usage.completionTokens += completion.usage.completionTokens;
          usage.totalTokens += completion.usage.totalTokens;
        }
        const estimated = results.some((result) => result.estimated);
        const choices = results.flatMap(({ completion }, index) => textChoicesOf(completion, index, request));
        const outcome = UsageOutcome.USAGE_OUTCOME_OK;
        publishUsage(
          deps,
          facts,
          { usage, estimated, outcome },
          { request: logged, answer: () => textAnswerLog(choices) },
          context,
        );
        return {
          id: `cmpl-${facts.caller.requestId}`,
          created: results[0]!.completion.created,
          model: facts.model.id,
          choices,
          usage,
        };
      } catch (error) {
        publishFailure(deps, facts, error, signal, logged);
        throw error;
      }
    });
  };
}
