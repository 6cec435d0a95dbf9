import type { UnaryContext } from "@gateway/platform";
import type { EditImagesRequest, GenerateImagesRequest, ImagesResponse } from "@gateway/proto/router/v1/images";
import { mediaAdapterFor } from "../adapters/openai-media/media-adapter.js";
import type { FileStore } from "../media/file-store.js";
import { checkEdit, checkGeneration, imageRulesOf } from "../media/image-rules.js";
import { editImagesRequestLog, generateImagesRequestLog } from "../request-log/request-bodies.js";
import { answerImages, wantsUrl } from "./answer-images.js";
import { resolveRoute } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

/** What the image handlers need beyond the chat path's dependencies. */
export interface MediaDependencies {
  files: FileStore;
  // The output tokens one image of a model billed by token is reserved at (ROUTER_IMAGE_OUTPUT_TOKENS_BOUND).
  imageOutputTokensBound: number;
}

/** POST /v1/images/generations: the model's rules are checked before anything reaches the vendor. */
export function generateImages(deps: RouterDependencies, media: MediaDependencies) {
  return async (request: GenerateImagesRequest, context: UnaryContext): Promise<ImagesResponse> => {
    const facts = resolveRoute(deps, request, "/v1/images/generations");
    const choice = checkGeneration(facts.model, request);
    return answerImages(deps, media, {
      request,
      inputImages: 0,
      facts,
      choice,
      wantsUrl: wantsUrl(imageRulesOf(facts.model).response_format, request.responseFormat),
      context,
      logged: () => generateImagesRequestLog(request),
      callVendor: (call) => mediaAdapterFor(call.channel).generateImages(call),
    });
  };
}

/** POST /v1/images/edits: file types, sizes and dimensions are checked here, against the model's rules. */
export function editImages(deps: RouterDependencies, media: MediaDependencies) {
  return async (request: EditImagesRequest, context: UnaryContext): Promise<ImagesResponse> => {
    const facts = resolveRoute(deps, request, "/v1/images/edits");
    const choice = checkEdit(facts.model, request);
    return answerImages(deps, media, {
      request,
      inputImages: request.images.length,
      facts,
      choice,
      wantsUrl: wantsUrl(imageRulesOf(facts.model).response_format, request.responseFormat),
      context,
      logged: () => editImagesRequestLog(request),
      callVendor: (call) => mediaAdapterFor(call.channel).editImages(call),
    });
  };
}
