import type { CatalogueModel, ImageRules } from "@gateway/catalogue";
import { invalidRequest, payloadTooLarge, serverError } from "@gateway/platform";
import type { EditImagesRequest, GenerateImagesRequest, UploadedFile } from "@gateway/proto/router/v1/images";
import { type ImageHeader, readImageHeader } from "./image-header.js";

/** What one images request resolves to under its model's rules, and the price of each image. */
export interface ImageChoice {
  n: number;
  size: string;
  quality: string | undefined;
  priceMicros: number;
}

// OpenAI's limit for masks, whatever the model.
const maskMaxBytes = 4 * 1024 * 1024;

const unsupported = (param: string, value: string, model: string, allowed: readonly string[]) =>
  invalidRequest(
    `Invalid value for '${param}': '${value}'. Supported values for ${model} are: ${allowed.map((item) => `'${item}'`).join(", ")}.`,
    param,
    "invalid_value",
  );

export function imageRulesOf(model: CatalogueModel): ImageRules {
  if (!model.images) throw serverError(`The catalogue has no image rules for ${model.id}.`);
  return model.images;
}

type CommonFields = Pick<GenerateImagesRequest, "prompt" | "n" | "size" | "quality" | "responseFormat"> &
  Partial<Pick<GenerateImagesRequest, "aspectRatio">>;

/** Whether a catalogue size is an aspect ratio ("16:9"): the model takes ratios, not pixel sizes. */
export const isAspectRatio = (size: string) => size.includes(":");

/** The size a request asks for: its own, the one its aspect ratio stands for, or the model's default. */
export function sizeAsked(model: CatalogueModel, request: CommonFields): string {
  const rules = imageRulesOf(model);
  // A model whose sizes are ratios (Grok) takes aspect_ratio only, as its vendor does.
  if (isAspectRatio(rules.default_size)) {
    if (request.size !== undefined) {
      throw invalidRequest(
        `Unknown parameter: 'size'. ${model.id} takes aspect_ratio: ${rules.sizes.join(", ")}.`,
        "size",
        "unknown_parameter",
      );
    }
    return request.aspectRatio ?? rules.default_size;
  }
  if (request.aspectRatio === undefined) return request.size ?? rules.default_size;
  const ratios = rules.aspect_ratios;
  if (!ratios) {
    throw invalidRequest(
      `Unknown parameter: 'aspect_ratio'. ${model.id} takes a size.`,
      "aspect_ratio",
      "unknown_parameter",
    );
  }
  const size = rules.sizes.find((each) => ratios[each] === request.aspectRatio);
  if (size === undefined) {
    throw unsupported("aspect_ratio", request.aspectRatio, model.id, [...new Set(Object.values(ratios))]);
  }
  if (request.size !== undefined && request.size !== size) {
    throw invalidRequest(
      `Invalid 'size': '${request.size}' is not the aspect ratio ${request.aspectRatio}; send one of the two.`,
      "size",
      "invalid_value",
    );
  }
  return size;
}

/** The aspect ratio a vendor that takes ratios is called with, for a request its rules accepted. */
export function aspectRatioFor(model: CatalogueModel, request: CommonFields): string {
  const size = sizeAsked(model, request);
  if (isAspectRatio(size)) return size;
  const ratio = imageRulesOf(model).aspect_ratios?.[size];
  if (ratio === undefined) throw serverError(`The catalogue has no aspect ratios for ${model.id}.`);
  return ratio;
}

/** The checks generations and edits share; nothing the model cannot do reaches the vendor. */
function checkCommon(model: CatalogueModel, request: CommonFields): ImageChoice {
  const rules = imageRulesOf(model);
  if (request.prompt.length > rules.max_prompt_chars) {
    throw invalidRequest(
      `Invalid 'prompt': string too long. ${model.id} accepts at most ${rules.max_prompt_chars} characters, got ${request.prompt.length}.`,
      "prompt",
      "string_above_max_length",
    );
  }
  const n = request.n ?? 1;
  if (n > rules.max_n) {
    throw invalidRequest(
      `Invalid 'n': ${model.id} makes at most ${rules.max_n} image(s) per request.`,
      "n",
      "invalid_value",
    );
  }
  const size = sizeAsked(model, request);
  if (!rules.sizes.includes(size)) {
    throw unsupported(isAspectRatio(rules.default_size) ? "aspect_ratio" : "size", size, model.id, rules.sizes);
  }
  if (request.quality !== undefined && !rules.qualities.includes(request.quality)) {
    throw unsupported("quality", request.quality, model.id, rules.qualities);
  }
  if (request.responseFormat !== undefined && !rules.response_format) {
    throw invalidRequest(
      `Unknown parameter: 'response_format'. ${model.id} always answers with b64_json.`,
      "response_format",
      "unknown_parameter",
    );
  }
  // Billed by token from the vendor's usage: no price per image.
  if (rules.image_input_price !== undefined) return { n, size, quality: request.quality, priceMicros: 0 };
  const priced = request.quality === undefined || request.quality === "auto" ? rules.default_quality : request.quality;
  const priceMicros = rules.prices[size]?.[priced];
  if (priceMicros === undefined) throw serverError(`The catalogue has no price for ${model.id} ${size} ${priced}.`);
  return { n, size, quality: request.quality, priceMicros };
}

export function checkGeneration(model: CatalogueModel, request: GenerateImagesRequest): ImageChoice {
  const choice = checkCommon(model, request);
  const styles = imageRulesOf(model).styles;
  if (request.style !== undefined && !styles.includes(request.style)) {
    if (styles.length === 0) {
      throw invalidRequest(
        `Unknown parameter: 'style'. ${model.id} does not take a style.`,
        "style",
        "unknown_parameter",
      );
    }
    throw unsupported("style", request.style, model.id, styles);
  }
  return choice;
}

function checkImageFile(file: UploadedFile, param: string, formats: readonly string[], maxBytes: number): ImageHeader {
  if (file.data.length > maxBytes) {
    throw payloadTooLarge(
      `Invalid '${param}': the file is ${file.data.length} bytes; the limit is ${maxBytes} bytes.`,
      param,
    );
  }
  const header = readImageHeader(Buffer.from(file.data));
  if (!header || !formats.includes(header.format)) {
    const names = formats.map((format) => format.toUpperCase()).join(", ");
    throw invalidRequest(
      `Invalid '${param}': '${file.filename}' is not a supported image. Upload ${names}.`,
      param,
      "invalid_image_format",
    );
  }
  return header;
}

export function checkEdit(model: CatalogueModel, request: EditImagesRequest): ImageChoice {
  const edits = imageRulesOf(model).edits;
  if (!edits) {
    throw invalidRequest(`The model \`${model.id}\` does not support image edits.`, "model", "unsupported_model");
  }
  const choice = checkCommon(model, request);
  if (request.images.length === 0) throw invalidRequest("Missing required parameter: 'image'.", "image");
  if (request.images.length > edits.max_images) {
    throw invalidRequest(
      `Invalid 'image': ${model.id} edits at most ${edits.max_images} image(s), got ${request.images.length}.`,
      "image",
      "invalid_value",
    );
  }
  const headers = request.images.map((image) => checkImageFile(image, "image", edits.formats, edits.max_bytes));
  const first = headers[0]!;
  if (edits.square && headers.some((header) => header.width !== header.height)) {
    throw invalidRequest(
      `Invalid 'image': ${model.id} edits square images only; got ${first.width}x${first.height}.`,
      "image",
      "invalid_image_dimensions",
    );
  }
  if (request.mask) {
    const mask = checkImageFile(request.mask, "mask", ["png"], maskMaxBytes);
    if (mask.width !== first.width || mask.height !== first.height) {
      throw invalidRequest(
        `Invalid 'mask': the mask is ${mask.width}x${mask.height} but the image is ${first.width}x${first.height}; they must have the same dimensions.`,
        "mask",
        "invalid_image_dimensions",
      );
    }
  }
  return choice;
}
