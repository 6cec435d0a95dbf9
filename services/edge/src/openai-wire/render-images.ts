import type { ImagesResponse } from "@gateway/proto/router/v1/images";

// OpenAI's images response: {created, data:[{url} | {b64_json}, revised_prompt?]} (PROTOCOLS.md A8).
export function renderImages(answer: ImagesResponse, urlFor: (fileId: string) => string) {
  return {
    created: answer.created,
    data: answer.data.map((image) => ({
      ...(image.fileId !== undefined ? { url: urlFor(image.fileId) } : { b64_json: image.b64Json ?? "" }),
      ...(image.revisedPrompt !== undefined && { revised_prompt: image.revisedPrompt }),
    })),
  };
}
