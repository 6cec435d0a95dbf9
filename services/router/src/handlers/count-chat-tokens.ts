import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import type { TokenCount } from "@gateway/proto/router/v1/router";
import { inSpan, type UnaryContext } from "@gateway/shared";
import { estimatePromptTokens } from "../usage/token-estimate.js";
import { callWithFailover, routeRequest } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

/**
 * Counts a chat request's input tokens: the vendor's exact count where its adapter can ask
 * (Anthropic), the gateway's own estimate otherwise. Counting is free, as at Anthropic: no
 * reservation, no usage event.
 */
export function countChatTokens(deps: RouterDependencies) {
  return async (request: ChatRequest, context: UnaryContext): Promise<TokenCount> => {
    const facts = routeRequest(deps, request, "/v1/chat/completions");
    if (!deps.adapterFor(facts.channel).countTokens) {
      return { inputTokens: estimatePromptTokens(request, facts.model), exact: false };
    }
    return inSpan("router.count_tokens", { "gateway.model": facts.model.id }, async () => {
      const inputTokens = await callWithFailover(deps, request, facts, context.signal, (call) =>
        deps.adapterFor(call.channel).countTokens!(call),
      );
      return { inputTokens, exact: true };
    });
  };
}
