import type { CatalogueModel } from "@gateway/catalogue";
import { imageTokens } from "./image-tokens.js";
import { TextTokenCounter } from "./text-tokens.js";
import { imageTokenRule } from "./token-estimate.js";

// An inline image: its base64 is no text the model reads, it costs what the vendor's image rule says.
const imageDataUrl = /data:image\/[^"\\;]*;base64,[A-Za-z0-9+/=\\]*/g;

/**
 * The prompt tokens of a Responses body relayed as sent, never fewer than the vendor counts: the
 * whole JSON text counted as the model's text (its field names and punctuation on top), every
 * inline image at its rule's largest. What the gateway cannot see (a previous response's turns
 * at the vendor) is the caller's to add.
 */
export function estimateResponsesPromptTokens(bodyText: string, model: CatalogueModel): number {
  let images = 0;
  const text = bodyText.replace(imageDataUrl, () => {
    images += 1;
    return "";
  });
  return new TextTokenCounter(model.tokenizer).count(text) + images * imageTokens(imageTokenRule(model), undefined);
}
