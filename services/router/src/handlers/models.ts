import type { CatalogueModel } from "@gateway/catalogue/catalogue";
import type {
  GetModelRequest,
  ListModelsRequest,
  Model,
  ModelList,
  ServingStatus,
} from "@gateway/proto/router/v1/router";
import type { RouterDependencies } from "./router-dependencies.js";

function toModel(model: CatalogueModel): Model {
  return {
    id: model.id,
    created: model.created,
    ownedBy: model.ownedBy,
    contextWindow: model.context_window,
    endpoints: model.endpoints,
    maxOutputTokens: model.max_output_tokens,
  };
}

export function listModels(deps: RouterDependencies) {
  return async (request: ListModelsRequest): Promise<ModelList> => ({
    models: deps.catalogue.current.list(request.modelGroup).map(toModel),
  });
}

export function getModel(deps: RouterDependencies) {
  return async (request: GetModelRequest): Promise<Model> => {
    const model = deps.catalogue.current.find(request.id, request.modelGroup);
    if (!model) throw deps.catalogue.current.notFoundError(request.id, request.modelGroup);
    return toModel(model);
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
