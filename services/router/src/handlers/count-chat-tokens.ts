import type { RequestFacts } from "@gateway/billing";
import { inSpan, type UnaryContext } from "@gateway/platform";
import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import type { TokenCount } from "@gateway/proto/router/v1/router";
import { estimatePromptTokens } from "../usage/token-estimate.js";
import { callWithFailover, routeRequest } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

/**
 * Counts a chat request's input tokens: the vendor's exact count where its adapter can ask
 * (Anthropic, Gemini), the gateway's own estimate otherwise. Counting is free, as at the
 * vendors (no reservation, no usage event), but it is a request: it counts against the key's
 * and account's request and concurrency limits, so nobody can spend the vendors' capacity for
 * every tenant at no cost.
 */
export function countChatTokens(deps: RouterDependencies) {
  return async (request: ChatRequest, context: UnaryContext): Promise<TokenCount> => {
    const facts = routeRequest(deps, request, "/v1/chat/completions");
    await deps.rateLimits.admit(facts.caller, deps.catalogue.current.limitsFor(facts.caller.modelGroup), 0);
    try {
      return await count(deps, request, facts, context.signal);
    } finally {
      void deps.rateLimits.release(facts.caller);
    }
  };
}

function count(deps: RouterDependencies, request: ChatRequest, facts: RequestFacts, signal: AbortSignal) {
  if (!deps.adapterFor(facts.channel).countTokens) {
    return { inputTokens: estimatePromptTokens(request, facts.model), exact: false };
  }
  return inSpan("router.count_tokens", { "gateway.model": facts.model.id }, async () => {
    const inputTokens = await callWithFailover(deps, request, facts, signal, (call) =>
      deps.adapterFor(call.channel).countTokens!(call),
    );
    return { inputTokens, exact: true };
  });
}
