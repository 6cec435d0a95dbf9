import { callUnary, fromGrpcError } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { Model, RouterServiceClient } from "@gateway/proto/router/v1/router";
import type { Request, Response } from "express";
import { renderPricing } from "../openai-wire/render-pricing.js";
import { speaksAnthropic } from "./messages.js";

// Edge serves the Responses API and Anthropic's Messages API on top of chat (routes/responses.ts,
// routes/messages.ts), so every chat model serves them too; the catalogue names /v1/responses only
// for a model its vendor offers on nothing else.
const chatEndpoint = "/v1/chat/completions";
const endpointsOnChat = ["/v1/responses", "/v1/messages"];
const servedEndpoints = (endpoints: string[]) =>
  endpoints.includes(chatEndpoint)
    ? [...endpoints, ...endpointsOnChat.filter((endpoint) => !endpoints.includes(endpoint))]
    : endpoints;

/** OpenAI's model object plus what a gateway user needs to choose: context window, endpoints and prices. */
const renderModel = (model: Model) => ({
  id: model.id,
  object: "model",
  created: model.created,
  owned_by: model.ownedBy,
  context_window: model.contextWindow,
  endpoints: servedEndpoints(model.endpoints),
  ...(model.pricing?.tokens && { pricing: renderPricing(model.pricing, model.pricing.tokens) }),
  // OpenAI's list names a deprecated model's shutdown day as shutdown_date; successor says what to move to.
  ...(model.shutdownDate && { shutdown_date: model.shutdownDate, successor: model.successor }),
});

/** Anthropic's model object, for clients that send anthropic-version. https://docs.anthropic.com/en/api/models-list */
const renderAnthropicModel = (model: Model) => ({
  type: "model",
  id: model.id,
  display_name: model.id,
  created_at: new Date(model.created * 1000).toISOString(),
});

function renderModelList(models: Model[], anthropic: boolean) {
  if (!anthropic) return { object: "list", data: models.map(renderModel) };
  return {
    data: models.map(renderAnthropicModel),
    has_more: false,
    first_id: models[0]?.id ?? null,
    last_id: models.at(-1)?.id ?? null,
  };
}

export function listModels(router: RouterServiceClient) {
  return async (request: Request, response: Response) => {
    const { modelGroup } = response.locals.caller as Caller;
    const list = await callUnary(router.listModels.bind(router), { modelGroup }, 10_000).catch((error: unknown) => {
      throw fromGrpcError(error);
    });
    response.json(renderModelList(list.models, speaksAnthropic(request)));
  };
}

export function retrieveModel(router: RouterServiceClient) {
  return async (request: Request, response: Response) => {
    const { modelGroup } = response.locals.caller as Caller;
    const id = String(request.params.model);
    const model = await callUnary(router.getModel.bind(router), { modelGroup, id }, 10_000).catch((error: unknown) => {
      throw fromGrpcError(error);
    });
    response.json(speaksAnthropic(request) ? renderAnthropicModel(model) : renderModel(model));
  };
}
