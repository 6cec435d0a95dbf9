import type { RequestFacts } from "@gateway/billing";
import { serverError } from "@gateway/platform";
import type { RelayResponseRequest } from "@gateway/proto/router/v1/responses_relay";
import { type RelayedRequest, readRelayedRequest } from "../adapters/openai-responses/responses-request.js";
import { pricedModel, responsesSurcharges } from "../billing/surcharges.js";
import { fallbackMaxTokens, worstCaseOfTokens } from "../billing/worst-case-cost.js";
import { estimateResponsesPromptTokens } from "../usage/responses-token-estimate.js";
import { admitCost } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

export const responsesEndpoint = "/v1/responses";

/** A relayed request admitted: its routing facts, the fields the gateway read, and its prompt estimate. */
export interface AdmittedRelay {
  facts: RequestFacts;
  fields: RelayedRequest;
  promptEstimate: number;
}

/**
 * Resolves the model for the caller's group (unknown and forbidden models answer as on chat) and,
 * when its vendor has the Responses API, reserves the request's worst case as chat does; undefined
 * when the model is served on chat, before anything is reserved, for edge to translate the request.
 */
export async function admitRelay(
  deps: RouterDependencies,
  request: RelayResponseRequest,
): Promise<AdmittedRelay | undefined> {
  const caller = request.caller;
  if (!caller?.requestId || !caller.modelGroup) throw serverError("Request arrived without a caller.");
  const catalogue = deps.catalogue.current;
  const found = catalogue.find(request.model, caller.modelGroup);
  if (!found) throw catalogue.notFoundError(request.model, caller.modelGroup);
  if (!found.vendorEndpoints.includes(responsesEndpoint)) return undefined;
  const channel = found.channels[0];
  if (!channel) throw serverError(`No channel serves ${found.id}.`);
  const { text, fields } = readRelayedRequest(request.body);
  const surcharges = responsesSurcharges(fields.service_tier, found);
  const model = pricedModel(found, surcharges);
  const facts: RequestFacts = {
    caller,
    model,
    channel,
    endpoint: responsesEndpoint,
    stream: request.stream,
    startedAt: Date.now(),
    ...(surcharges.length > 0 && { surcharged: { standard: found, options: surcharges } }),
  };
  const promptEstimate = estimateResponsesPromptTokens(text, model);
  // The turns of a previous response or conversation are at the vendor, unseen: the whole context may be prompt.
  const continues = Boolean(fields.previous_response_id) || fields.conversation !== undefined;
  // Without max_output_tokens the vendor may run to the model's ceiling.
  const ceiling = model.max_output_tokens ?? fallbackMaxTokens;
  const outputTokens = Math.min(fields.max_output_tokens ?? ceiling, ceiling);
  const promptTokens = continues ? Math.max(promptEstimate, model.context_window) : promptEstimate;
  const most = worstCaseOfTokens(promptTokens, outputTokens, model, caller.multiplierBasisPoints);
  await admitCost(deps, facts, most.tokens, most.costMicros);
  return { facts, fields, promptEstimate };
}
