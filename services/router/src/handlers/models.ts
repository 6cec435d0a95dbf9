import type { CatalogueModel } from "@gateway/catalogue/catalogue";
import type { GetModelRequest, ListModelsRequest, Model, ModelList } from "@gateway/proto/router/v1/router";
import { modelNotFound } from "@gateway/shared";
import type { RouterDependencies } from "./router-dependencies.js";

function toModel(model: CatalogueModel): Model {
  return {
    id: model.id,
    created: model.created,
    ownedBy: model.ownedBy,
    contextWindow: model.context_window,
    endpoints: model.endpoints,
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
    if (!model) throw modelNotFound(request.id);
    return toModel(model);
  };
}
