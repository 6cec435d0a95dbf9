import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import type { TokenCount } from "@gateway/proto/router/v1/token_count";
import { inSpan, type UnaryContext } from "@gateway/shared";
import { estimatePromptTokens } from "../usage/token-estimate.js";
import { sendRateLimitHeaders } from "./rate-limit-metadata.js";
import { callWithFailover, routeRequest } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

/**
 * Counts a chat request's prompt tokens: the vendor's own count where its adapter offers one,
 * else the gateway's estimate (which never counts fewer than the vendor will). Vendors do not
 * bill counting, so neither does the gateway; the request still counts against the caller's
 * rate limits, and its concurrency slot is freed as soon as the count is known.
 */
export function countTokens(deps: RouterDependencies) {
  return async (request: ChatRequest, context: UnaryContext): Promise<TokenCount> => {
    const facts = routeRequest(deps, request, "/v1/chat/completions");
    const limits = deps.catalogue.current.limitsFor(facts.caller.modelGroup);
    facts.rateLimitHeaders = await deps.rateLimits.admit(facts.caller, limits, 0);
    sendRateLimitHeaders(context, facts);
    try {
      return await inSpan("router.count_tokens", { "gateway.model": facts.model.id }, async () => {
        // A model's channels all speak its vendor's protocol, so the first tells whether it can count.
        if (!deps.adapterFor(facts.channel).countTokens) {
          return { inputTokens: estimatePromptTokens(request, facts.model), exact: false };
        }
        const inputTokens = await callWithFailover(deps, request, facts, context.signal, (call) =>
          deps.adapterFor(call.channel).countTokens!(call),
        );
        return { inputTokens, exact: true };
      });
    } finally {
      await deps.rateLimits.release(facts.caller);
    }
  };
}
