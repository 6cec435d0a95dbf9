import type { CatalogueModel } from "@gateway/catalogue";
import type { TranscriptionRequest } from "@gateway/proto/router/v1/audio";
import type { EditImagesRequest, GenerateImagesRequest, UploadedFile } from "@gateway/proto/router/v1/images";
import { FormData } from "undici";
import { z } from "zod";
import { aspectRatioFor, isAspectRatio } from "../../media/image-rules.js";

// OpenAI's images and transcription wire formats (PROTOCOLS.md A8, A9).

export const openAIImagesSchema = z.object({
  created: z.number().int(),
  data: z.array(
    z.object({
      b64_json: z.string().nullish(),
      url: z.string().nullish(),
      revised_prompt: z.string().nullish(),
    }),
  ),
  // GPT image models count their work in tokens, images read apart from text (openai-python's
  // ImagesResponse.Usage); dall-e answers none.
  usage: z
    .object({
      input_tokens: z.number().int().min(0),
      output_tokens: z.number().int().min(0),
      total_tokens: z.number().int().min(0).nullish(),
      input_tokens_details: z.object({ image_tokens: z.number().int().min(0).nullish() }).nullish(),
    })
    .nullish(),
});

/** The gateway always takes base64 from dall-e, which would otherwise answer with a vendor URL. */
const responseFormat = (model: CatalogueModel) => (model.images?.response_format ? "b64_json" : undefined);

export function toOpenAIGeneration(request: GenerateImagesRequest, model: CatalogueModel) {
  // xAI's images endpoint takes an aspect ratio and refuses size, quality and style.
  if (model.images && isAspectRatio(model.images.default_size)) {
    return {
      model: model.id,
      prompt: request.prompt,
      n: request.n,
      aspect_ratio: aspectRatioFor(model, request),
      response_format: responseFormat(model),
      user: request.user,
    };
  }
  return {
    model: model.id,
    prompt: request.prompt,
    n: request.n,
    size: request.size,
    quality: request.quality,
    style: request.style,
    response_format: responseFormat(model),
    user: request.user,
  };
}

const blobOf = (file: UploadedFile) =>
  new Blob([file.data as Uint8Array<ArrayBuffer>], { type: file.contentType || "application/octet-stream" });

/** Appends the fields that are set; FormData has no notion of absent. */
function appendFields(form: FormData, fields: Record<string, string | number | undefined>): FormData {
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, String(value));
  return form;
}

export function toOpenAIEdit(request: EditImagesRequest, model: CatalogueModel): FormData {
  const form = appendFields(new FormData(), {
    model: model.id,
    prompt: request.prompt,
    n: request.n,
    size: request.size,
    quality: request.quality,
    response_format: responseFormat(model),
    user: request.user,
  });
  // Several images go as repeated image[] fields, as OpenAI documents for GPT image models.
  const field = request.images.length > 1 ? "image[]" : "image";
  for (const image of request.images) form.append(field, blobOf(image), image.filename);
  if (request.mask) form.append("mask", blobOf(request.mask), request.mask.filename);
  return form;
}

export function toOpenAITranscription(request: TranscriptionRequest, model: CatalogueModel): FormData {
  const form = appendFields(new FormData(), {
    model: model.id,
    language: request.language,
    prompt: request.prompt,
    response_format: request.responseFormat,
    temperature: request.temperature,
  });
  for (const granularity of request.timestampGranularities) form.append("timestamp_granularities[]", granularity);
  if (request.file) form.append("file", blobOf(request.file), request.file.filename);
  return form;
}
