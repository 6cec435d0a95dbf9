import type { EmbeddingList, EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";
import { inSpan, priceUsage, serverError } from "@gateway/shared";
import { embeddingAdapterFor } from "../adapters/adapter-registry.js";
import type { CatalogueModel } from "../catalogue/catalogue.js";
import { UsageOutcome, usageEvent } from "../usage/request-accounting.js";
import { estimateEmbeddingTokens } from "../usage/token-estimate.js";
import { publishFailure } from "./create-chat-completion.js";
import { checkEmbeddingRequest } from "./embedding-rules.js";
import { admitCost, callWithFailover, resolveRoute } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

/** What the inputs will cost, reserved from the balance before any vendor is called. */
function expectedCostMicros(request: EmbeddingRequest, model: CatalogueModel, multiplierBasisPoints: number): bigint {
  return priceUsage({
    promptTokens: estimateEmbeddingTokens(request),
    completionTokens: 0,
    inputPriceMicros: model.price.input,
    outputPriceMicros: model.price.output,
    multiplierBasisPoints: multiplierBasisPoints || 10_000,
  });
}

/** Embeddings: route, check against the catalogue, call the vendor with failover, bill the input tokens. */
export function createEmbeddings(deps: RouterDependencies, adapterFor = embeddingAdapterFor) {
  return async (request: EmbeddingRequest, { signal }: { signal: AbortSignal }): Promise<EmbeddingList> => {
    const facts = resolveRoute(deps, request, "/v1/embeddings");
    const rules = facts.model.embedding;
    if (!rules) throw serverError(`The catalogue has no embedding rules for ${facts.model.id}.`);
    checkEmbeddingRequest(request, facts.model.id, rules);
    const cost = expectedCostMicros(request, facts.model, facts.caller.multiplierBasisPoints);
    await admitCost(deps, facts, estimateEmbeddingTokens(request), cost);
    return inSpan("router.embeddings", { "gateway.model": facts.model.id }, async () => {
      try {
        const result = await callWithFailover(deps, request, facts, signal, (call) =>
          adapterFor(call.channel).embed(call),
        );
        // Gemini reports no usage, so its requests are billed on an estimate (and flagged so).
        const estimated = result.promptTokens === undefined;
        const promptTokens = result.promptTokens ?? estimateEmbeddingTokens(request);
        const usage = { promptTokens, completionTokens: 0, totalTokens: promptTokens };
        deps.usage.publish(usageEvent(facts, { usage, estimated, outcome: UsageOutcome.USAGE_OUTCOME_OK }));
        return {
          model: facts.model.id,
          data: result.vectors.map((values, index) => ({ index, values })),
          usage: { promptTokens, totalTokens: promptTokens },
        };
      } catch (error) {
        publishFailure(deps, facts, error, signal);
        throw error;
      }
    });
  };
}
