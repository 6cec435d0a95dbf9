import { priceUsage, UsageOutcome } from "@gateway/billing";
import type { CatalogueModel } from "@gateway/catalogue";
import { pricesAt } from "@gateway/catalogue";
import { inSpan, serverError, type UnaryContext } from "@gateway/platform";
import type { EmbeddingList, EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";
import { embeddingAdapterFor } from "../adapters/adapter-registry.js";
import { embeddingAnswerLog } from "../request-log/answer-bodies.js";
import { embeddingRequestLog } from "../request-log/request-bodies.js";
import { estimateEmbeddingTokens } from "../usage/token-estimate.js";
import { sendHeadersBeforeVendor } from "./call-headers.js";
import { checkEmbeddingRequest } from "./embedding-rules.js";
import { publishFailure, publishUsage } from "./publish-usage.js";
import { admitCost, callWithFailover, resolveRoute } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

/** What the inputs will cost, reserved from the balance before any vendor is called. */
function expectedCostMicros(promptTokens: number, model: CatalogueModel, multiplierBasisPoints: number): bigint {
  const price = pricesAt(model.price, promptTokens);
  return priceUsage({
    promptTokens,
    completionTokens: 0,
    inputPriceMicros: price.input,
    outputPriceMicros: price.output,
    multiplierBasisPoints: multiplierBasisPoints || 10_000,
  });
}

/** Embeddings: route, check against the catalogue, call the vendor with failover, bill the input tokens. */
export function createEmbeddings(deps: RouterDependencies, adapterFor = embeddingAdapterFor) {
  return async (request: EmbeddingRequest, context: UnaryContext): Promise<EmbeddingList> => {
    const { signal } = context;
    const facts = resolveRoute(deps, request, "/v1/embeddings");
    const rules = facts.model.embedding;
    if (!rules) throw serverError(`The catalogue has no embedding rules for ${facts.model.id}.`);
    checkEmbeddingRequest(request, facts.model.id, rules);
    const expectedTokens = estimateEmbeddingTokens(request, facts.model);
    const cost = expectedCostMicros(expectedTokens, facts.model, facts.caller.multiplierBasisPoints);
    await admitCost(deps, facts, expectedTokens, cost);
    await sendHeadersBeforeVendor(context, facts);
    const logged = () => embeddingRequestLog(request);
    return inSpan("router.embeddings", { "gateway.model": facts.model.id }, async () => {
      try {
        const result = await callWithFailover(deps, request, facts, signal, (call) =>
          adapterFor(call.channel).embed(call),
        );
        // Gemini reports no usage, so its requests are billed on an estimate (and flagged so).
        const estimated = result.promptTokens === undefined;
        const promptTokens = result.promptTokens ?? expectedTokens;
        const usage = { promptTokens, completionTokens: 0, totalTokens: promptTokens };
        const outcome = UsageOutcome.USAGE_OUTCOME_OK;
        const answer = () => embeddingAnswerLog(result.vectors);
        publishUsage(deps, facts, { usage, estimated, outcome }, { request: logged, answer }, context);
        return {
          model: facts.model.id,
          data: result.vectors.map((values, index) => ({ index, values })),
          usage: { promptTokens, totalTokens: promptTokens },
        };
      } catch (error) {
        publishFailure(deps, facts, error, signal, logged);
        throw error;
      }
    });
  };
}
