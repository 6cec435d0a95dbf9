import type { Usage } from "@gateway/proto/router/v1/chat";
import type { ImagesResponse } from "@gateway/proto/router/v1/images";

// OpenAI's images response: {created, data:[{url} | {b64_json}, revised_prompt?], usage?} (PROTOCOLS.md A8).
export function renderImages(answer: ImagesResponse, urlFor: (fileId: string) => string) {
  return {
    created: answer.created,
    data: answer.data.map((image) => ({
      ...(image.fileId !== undefined ? { url: urlFor(image.fileId) } : { b64_json: image.b64Json ?? "" }),
      ...(image.revisedPrompt !== undefined && { revised_prompt: image.revisedPrompt }),
    })),
    ...(answer.usage && { usage: renderImagesUsage(answer.usage) }),
  };
}

/** GPT image models' usage as OpenAI answers it: input tokens split into text and images. */
function renderImagesUsage(usage: Usage) {
  const imageTokens = usage.imageTokens ?? 0;
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { image_tokens: imageTokens, text_tokens: Math.max(0, usage.promptTokens - imageTokens) },
    output_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens,
  };
}
