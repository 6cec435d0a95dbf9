import { serverError } from "@gateway/platform";
import type { GenerateImagesRequest } from "@gateway/proto/router/v1/images";
import { z } from "zod";
import { aspectRatioFor } from "../../media/image-rules.js";
import { malformedAnswer, parseVendorJson } from "../../vendor-http/parse-vendor-json.js";
import { postJson } from "../../vendor-http/vendor-client.js";
import type { AdapterCall } from "../chat-adapter.js";
import type { MediaAdapter, VendorImages } from "../openai-media/media-adapter.js";

// Imagen on the Gemini API: POST /v1beta/models/{model}:predict with the prompt as
// the one instance, the image count and aspect ratio as parameters; each prediction is a base64 image.
const predictResponseSchema = z.object({
  predictions: z
    .array(z.object({ bytesBase64Encoded: z.string().optional(), mimeType: z.string().optional() }))
    .default([]),
});

export function toPredictBody(request: GenerateImagesRequest, call: Pick<AdapterCall<unknown>, "model">) {
  return {
    instances: [{ prompt: request.prompt }],
    parameters: { sampleCount: request.n ?? 1, aspectRatio: aspectRatioFor(call.model, request) },
  };
}

export function fromPredict(raw: unknown): VendorImages {
  const answer = parseVendorJson(predictResponseSchema, raw);
  const images = answer.predictions.map((prediction) => ({
    b64Json: prediction.bytesBase64Encoded ?? "",
    revisedPrompt: undefined,
  }));
  // Google leaves out the images its filters withheld; none at all is an answer with nothing to bill or show.
  if (images.length === 0 || images.some((image) => image.b64Json === "")) throw malformedAnswer();
  // Imagen answers no creation time: the router stamps the request's.
  return { created: 0, images };
}

const notOffered = (what: string) => () => {
  throw serverError(`The Gemini API offers no ${what} the gateway relays.`);
};

export const geminiImages: MediaAdapter = {
  async generateImages(call) {
    const raw = await postJson({
      url: `${call.channel.baseUrl}/v1beta/models/${encodeURIComponent(call.model.id)}:predict`,
      headers: { "x-goog-api-key": call.channel.key.secret },
      body: toPredictBody(call.request, call),
      signal: call.signal,
      timeouts: call.timeouts,
    });
    return fromPredict(raw);
  },
  editImages: notOffered("image edits"),
  transcribe: notOffered("transcriptions"),
};
