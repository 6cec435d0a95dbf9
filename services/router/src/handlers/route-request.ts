import type { RequestFacts } from "@gateway/billing";
import { type CatalogueModel, DEFAULT_MAX_IMAGES_PER_REQUEST, vendorModelId } from "@gateway/catalogue";
import { invalidRequest, serverError, startPiece, timePiece } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import type { AdapterCall } from "../adapters/chat-adapter.js";
import { pricedModel, requestedSurcharges } from "../billing/surcharges.js";
import { worstCase } from "../billing/worst-case-cost.js";
import type { KeyedChannel } from "../routing/channel-keys.js";
import { reportKeyRefusal } from "../routing/report-key-refusal.js";
import { type FailoverContext, runWithFailover } from "../routing/run-with-failover.js";
import type { RouterDependencies } from "./router-dependencies.js";

function checkCapabilities(request: ChatRequest, model: CatalogueModel): void {
  const images = request.messages.reduce(
    (count, message) => count + message.parts.filter((part) => part.imageUrl).length,
    0,
  );
  if (images > 0 && !model.capabilities.includes("vision")) {
    throw invalidRequest(`The model \`${model.id}\` does not support image input.`, "messages", "unsupported_value");
  }
  const maxImages = model.max_images_per_request ?? DEFAULT_MAX_IMAGES_PER_REQUEST;
  if (images > maxImages) {
    throw invalidRequest(
      `Too many images: ${images}. The model \`${model.id}\` takes at most ${maxImages} images per request.`,
      "messages",
      "too_many_images",
    );
  }
  const ceiling = model.max_output_tokens;
  if (request.maxTokens !== undefined && ceiling !== undefined && request.maxTokens > ceiling) {
    throw invalidRequest(
      `max_tokens is too large: ${request.maxTokens}. The model \`${model.id}\` supports at most ${ceiling} completion tokens.`,
      "max_tokens",
      "invalid_value",
    );
  }
}

/** What every endpoint's request carries for routing. */
export interface RoutedRequest {
  caller?: Caller | undefined;
  model: string;
  stream?: boolean;
  // The endpoint the client called, when it is not the one routed (Responses on chat).
  clientEndpoint?: string;
}

/** Resolves the model for the caller's group and checks it serves the endpoint (any endpoint family). */
export function resolveRoute(deps: RouterDependencies, request: RoutedRequest, endpoint: string): RequestFacts {
  const caller = request.caller;
  if (!caller?.requestId || !caller.modelGroup) throw serverError("Request arrived without a caller.");
  const model = deps.catalogue.current.find(request.model, caller.modelGroup);
  if (!model) throw deps.catalogue.current.notFoundError(request.model, caller.modelGroup);
  if (!model.endpoints.includes(endpoint)) {
    const called = request.clientEndpoint ?? endpoint;
    // OpenAI's own words for its Responses-only models (the Codex line) on chat.
    const onlyResponses = !model.vendorEndpoints.includes("/v1/chat/completions") && model.vendorEndpoints.length > 0;
    const message = onlyResponses
      ? `The model \`${model.id}\` is only supported in /v1/responses and not in ${called}.`
      : `The model \`${model.id}\` does not serve ${called}.`;
    throw invalidRequest(message, "model", "unsupported_model");
  }
  const channel = model.channels[0];
  if (!channel) throw serverError(`No channel serves ${model.id}.`);
  return { caller, model, channel, endpoint, stream: request.stream ?? false, startedAt: Date.now() };
}

/**
 * Messages clients size max_tokens for Claude (Claude Code asks 32,000 or 64,000 of any model).
 * Served by another family, the bound becomes that model's own: translation takes the nearest
 * control, and an upper bound the model cannot reach asks nothing more of it than its own.
 */
function fitTranslatedMaxTokens(request: ChatRequest, facts: RequestFacts): void {
  const ceiling = facts.model.max_output_tokens;
  if (request.clientEndpoint !== "/v1/messages" || facts.channel.vendorEntry.protocol === "anthropic") return;
  if (request.maxTokens !== undefined && ceiling !== undefined && request.maxTokens > ceiling) {
    request.maxTokens = ceiling;
  }
}

/** Resolves the model for the caller's group and checks it can serve the chat request. */
export function routeRequest(deps: RouterDependencies, request: ChatRequest, endpoint: string): RequestFacts {
  const facts = resolveRoute(deps, request, endpoint);
  fitTranslatedMaxTokens(request, facts);
  checkCapabilities(request, facts.model);
  return facts;
}

/**
 * Resolves the model for the caller's group, checks it can serve the request, and reserves
 * the worst-case cost of every chat request billed as this one (text completions run one
 * per prompt); nothing reaches a vendor before that reservation holds.
 */
export async function admitRequest(
  deps: RouterDependencies,
  requests: readonly ChatRequest[],
  endpoint: string,
  // An endpoint's own checks, which must run before anything is reserved.
  check?: (model: CatalogueModel) => void,
): Promise<RequestFacts> {
  const facts = routeRequest(deps, requests[0]!, endpoint);
  check?.(facts.model);
  // Surcharged options (a priority tier, fast mode) price the reservation and the usage event alike.
  const surcharges = requestedSurcharges(requests[0]!, facts.model, facts.channel.vendorEntry.protocol);
  if (surcharges.length > 0) {
    facts.surcharged = { standard: facts.model, options: surcharges };
    facts.model = pricedModel(facts.model, surcharges);
  }
  let cost = 0n;
  let tokens = 0;
  for (const request of requests) {
    const most = worstCase(request, facts.model, facts.caller.multiplierBasisPoints);
    cost += most.costMicros;
    tokens += most.tokens;
  }
  await admitCost(deps, facts, tokens, cost);
  return facts;
}

/**
 * Counts the request against its key's and account's rate limits and reserves its worst-case
 * cost, in one Redis call, or, with admission leases on, admits it from this router's lease
 * (its balance, rate window and slots) without one; every endpoint admits through here before
 * any vendor call. A refused reservation takes no concurrency slot (no usage event will free one).
 */
export async function admitCost(
  deps: RouterDependencies,
  facts: RequestFacts,
  tokens: number,
  costMicros: bigint,
): Promise<void> {
  const limits = deps.catalogue.current.limitsFor(facts.caller.modelGroup);
  const leases = deps.leases;
  facts.rateLimitHeaders = await timePiece("admission", async () => {
    if (!leases) return deps.admission.admit(facts.caller, limits, tokens, costMicros);
    const taken = await leases.take(facts.caller, limits, tokens, costMicros);
    facts.lease = taken.admission;
    return taken.headers;
  });
  const counting = startPiece("metrics");
  deps.metrics.reservationOpened();
  counting?.();
}

/** The model as the channel's vendor knows it: the mapped id when the channel maps the model. */
export function upstreamModel(model: CatalogueModel, channel: KeyedChannel): CatalogueModel {
  const id = vendorModelId(channel, model.id);
  return id === model.id ? model : { ...model, id };
}

/** The model an answer names: the public id when the channel called the vendor by another. */
export function answeredModel(vendorAnswer: string, facts: RequestFacts): string {
  if (vendorModelId(facts.channel, facts.model.id) !== facts.model.id) return facts.model.id;
  return vendorAnswer || facts.model.id;
}

/**
 * Calls the vendor through the model's channels with retries and failover; `facts.channel`
 * ends up naming the channel that served (or failed last).
 */
export function callWithFailover<T, Request = ChatRequest>(
  deps: RouterDependencies,
  request: Request,
  facts: RequestFacts,
  signal: AbortSignal,
  work: (call: AdapterCall<Request>) => Promise<T>,
): Promise<T> {
  const { model } = facts;
  const timeouts = {
    connectMs: model.timeouts?.connect_ms ?? deps.timeouts.connectMs,
    firstByteMs: model.timeouts?.first_byte_ms ?? deps.timeouts.firstByteMs,
    idleMs: model.timeouts?.idle_ms ?? deps.timeouts.idleMs,
  };
  const context: FailoverContext = {
    channels: model.channels,
    health: deps.health,
    keys: deps.keys,
    retry: deps.retry,
    signal,
    startedAt: facts.startedAt,
    onAttempt: (channel) => {
      facts.channel = channel;
    },
    onKeyRefused: (refused) => reportKeyRefusal(deps.logger, deps.metrics, refused),
    observer: deps.metrics.failoverObserver(model),
  };
  return runWithFailover(context, (channel) =>
    work({ request, model: upstreamModel(model, channel), channel, signal, timeouts }),
  );
}
