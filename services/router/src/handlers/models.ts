import type { Catalogue, CatalogueModel } from "@gateway/catalogue";
import type {
  GetModelRequest,
  ListModelsRequest,
  Model,
  ModelList,
  ServingStatus,
} from "@gateway/proto/router/v1/router";
import { publicPricing } from "../billing/public-pricing.js";
import type { RouterDependencies } from "./router-dependencies.js";

function toModel(model: CatalogueModel, catalogue: Catalogue, group: string): Model {
  return {
    id: model.id,
    created: model.created,
    ownedBy: model.ownedBy,
    contextWindow: model.context_window,
    endpoints: model.endpoints,
    maxOutputTokens: model.max_output_tokens,
    pricing: publicPricing(model, catalogue.multiplierFor(group)),
    shutdownDate: model.deprecated?.shutdown_on,
    successor: model.deprecated?.successor,
  };
}

export function listModels(deps: RouterDependencies) {
  return async (request: ListModelsRequest): Promise<ModelList> => {
    const catalogue = deps.catalogue.current;
    return { models: catalogue.list(request.modelGroup).map((model) => toModel(model, catalogue, request.modelGroup)) };
  };
}

export function getModel(deps: RouterDependencies) {
  return async (request: GetModelRequest): Promise<Model> => {
    const catalogue = deps.catalogue.current;
    const model = catalogue.find(request.id, request.modelGroup);
    if (!model) throw catalogue.notFoundError(request.id, request.modelGroup);
    return toModel(model, catalogue, request.modelGroup);
  };
}

export function getServingStatus(deps: RouterDependencies) {
  return async (): Promise<ServingStatus> => {
    const catalogue = deps.catalogue.current;
    return {
      disabledChannels: [...catalogue.disabledChannels],
      modelsWithoutChannels: catalogue.modelsWithoutChannels,
      servableModels: catalogue.servableModelCount,
    };
  };
}
