import type { EmbeddingRules } from "@gateway/catalogue";
import { invalidRequest } from "@gateway/platform";
import type { EmbeddingRequest } from "@gateway/proto/router/v1/embeddings";

/** Refuses what the model cannot do, by the catalogue, before any vendor sees the request. */
export function checkEmbeddingRequest(request: EmbeddingRequest, modelId: string, rules: EmbeddingRules): void {
  const { dimensions } = request;
  if (dimensions !== undefined) {
    const range = rules.dimensions_range;
    if (!range) {
      throw invalidRequest(
        `The model \`${modelId}\` does not support the 'dimensions' parameter.`,
        "dimensions",
        "unsupported_parameter",
      );
    }
    if (dimensions < range.min || dimensions > range.max) {
      throw invalidRequest(
        `Invalid 'dimensions': ${dimensions}. The model \`${modelId}\` supports ${range.min} to ${range.max}.`,
        "dimensions",
        "invalid_value",
      );
    }
  }
  if (!rules.token_input && request.inputs.some((input) => input.tokens)) {
    throw invalidRequest(
      `The model \`${modelId}\` accepts only text input, not token ids.`,
      "input",
      "unsupported_value",
    );
  }
}
