import { type RequestFacts, UsageOutcome } from "@gateway/billing";
import { inSpan, startPiece, timePiece, type UnaryContext } from "@gateway/platform";
import type { ChatCompletion, ChatRequest, Usage } from "@gateway/proto/router/v1/chat";
import { recordResponseModel } from "../metrics/gen-ai-attributes.js";
import { chatAnswerLog } from "../request-log/answer-bodies.js";
import { chatRequestLog } from "../request-log/request-bodies.js";
import { estimatePromptTokens } from "../usage/token-estimate.js";
import { sendHeadersBeforeVendor } from "./call-headers.js";
import { publishFailure, publishUsage } from "./publish-usage.js";
import { admitRequest, answeredModel, callWithFailover } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

export interface ChatResult {
  completion: ChatCompletion & { usage: Usage };
  // True when the vendor reported no usage and the gateway estimated it.
  estimated: boolean;
}

const estimatedUsage = (promptTokens: number): Usage => ({
  promptTokens,
  completionTokens: 0,
  totalTokens: promptTokens,
});

/**
 * Calls the vendor for one canonical chat request through failover and fills in what the
 * vendor left out; publishes nothing, so endpoints built on chat (text completions) can
 * run several and report them as one request.
 */
export async function completeChat(
  deps: RouterDependencies,
  request: ChatRequest,
  facts: RequestFacts,
  signal: AbortSignal,
): Promise<ChatResult> {
  const completion = await callWithFailover(deps, request, facts, signal, (call) =>
    deps.adapterFor(call.channel).complete(call),
  );
  const estimated = completion.usage === undefined;
  const usage = completion.usage ?? estimatedUsage(estimatePromptTokens(request, facts.model));
  return {
    completion: {
      ...completion,
      id: completion.id || `chatcmpl-${facts.caller.requestId}`,
      model: answeredModel(completion.model, facts),
      created: completion.created || Math.floor(facts.startedAt / 1000),
      usage,
    },
    estimated,
  };
}

/** One unary chat completion: route, call the vendor, report usage. */
export function createChatCompletion(deps: RouterDependencies) {
  return async (request: ChatRequest, context: UnaryContext): Promise<ChatCompletion> => {
    const facts = await admitRequest(deps, [request], "/v1/chat/completions");
    await timePiece("headers", () => sendHeadersBeforeVendor(context, facts));
    const logged = () => chatRequestLog(request);
    return inSpan("router.chat_completion", { "gateway.model": facts.model.id }, async () => {
      try {
        const { completion, estimated } = await completeChat(deps, request, facts, context.signal);
        const tracing = startPiece("spans");
        recordResponseModel(completion.model);
        tracing?.();
        const outcome = UsageOutcome.USAGE_OUTCOME_OK;
        publishUsage(
          deps,
          facts,
          { usage: completion.usage, estimated, outcome },
          { request: logged, answer: () => chatAnswerLog(completion) },
          context,
        );
        return completion;
      } catch (error) {
        publishFailure(deps, facts, error, context.signal, logged);
        throw error;
      }
    });
  };
}
