import { invalidRequest } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { ImageServiceClient, UploadedFile } from "@gateway/proto/router/v1/images";
import type { Request, Response } from "express";
import type { GeneratedFiles } from "../files/generated-files.js";
import { callRouter } from "../http/call-router.js";
import type { PublicBaseUrl } from "../http/public-base-url.js";
import { filesOf, readMultipart, type UploadedPart } from "../http/read-multipart.js";
import { imageEditFieldsSchema, imageGenerationSchema } from "../openai-wire/image-request-schema.js";
import { renderImages } from "../openai-wire/render-images.js";
import { validateBody } from "../openai-wire/validate-body.js";

// Image models take tens of seconds; a minute or two is not unusual for several large images.
const imagesDeadlineMs = 5 * 60_000;
const megabyte = 1024 * 1024;
// The largest any model accepts (gpt-image-1: 50 MB a file, 16 images). The model's own, smaller
// limits (dall-e-2: 4 MB) are the router's; together the files must fit one 64 MB gRPC message.
export const editLimits = {
  fileFields: { image: 16, "image[]": 16, mask: 1 },
  maxFileBytes: 50 * megabyte,
  maxTotalFileBytes: 60 * megabyte,
  maxFields: 20,
  maxFieldBytes: 64 * 1024,
};
const mostEditImages = 16;

const undefinedIfNull = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

const toUploaded = (part: UploadedPart): UploadedFile => ({
  filename: part.filename,
  contentType: part.contentType,
  data: part.data,
});

/** POST /v1/images/generations (JSON). */
export function imageGenerations(service: ImageServiceClient, files: GeneratedFiles, baseUrlOf: PublicBaseUrl) {
  return async (request: Request, response: Response) => {
    const body = validateBody(imageGenerationSchema, request.body);
    const answer = await callRouter(
      service.generateImages.bind(service),
      {
        caller: response.locals.caller as Caller,
        model: body.model,
        prompt: body.prompt,
        n: undefinedIfNull(body.n),
        size: undefinedIfNull(body.size),
        quality: undefinedIfNull(body.quality),
        responseFormat: undefinedIfNull(body.response_format),
        style: undefinedIfNull(body.style),
        aspectRatio: undefinedIfNull(body.aspect_ratio),
        user: body.user,
      },
      response,
      imagesDeadlineMs,
    );
    response.json(renderImages(answer, (fileId) => files.urlFor(baseUrlOf(request), fileId)));
  };
}

/** POST /v1/images/edits (multipart): `image` or repeated `image[]`, optional `mask`. */
export function imageEdits(service: ImageServiceClient, files: GeneratedFiles, baseUrlOf: PublicBaseUrl) {
  return async (request: Request, response: Response) => {
    const form = await readMultipart(request, editLimits);
    const fields = validateBody(imageEditFieldsSchema, form.fields);
    const images = filesOf(form, "image", "image[]");
    if (images.length === 0) throw invalidRequest("Missing required parameter: 'image'.", "image");
    if (images.length > mostEditImages) {
      throw invalidRequest(`Invalid 'image': at most ${mostEditImages} images.`, "image");
    }
    const mask = filesOf(form, "mask")[0];
    const answer = await callRouter(
      service.editImages.bind(service),
      {
        caller: response.locals.caller as Caller,
        model: fields.model,
        prompt: fields.prompt,
        images: images.map(toUploaded),
        mask: mask && toUploaded(mask),
        n: fields.n,
        size: fields.size,
        quality: fields.quality,
        responseFormat: fields.response_format,
        user: fields.user,
      },
      response,
      imagesDeadlineMs,
    );
    response.json(renderImages(answer, (fileId) => files.urlFor(baseUrlOf(request), fileId)));
  };
}
