import { createHash } from "node:crypto";
import { applyLeadingFaults, resolveFault } from "../faults.js";
import { solidPng } from "../gemini/images.js";
import { type Exchange, type SimulatorState, sendJson, writeHead } from "../http.js";
import { isRecord } from "../json.js";
import { describeForm, type FormBody, parseMultipart } from "../multipart.js";
import { requireApiKey, sendOpenAIError, sendStatusFault } from "./errors.js";

interface ImagesRequest {
  model: string;
  prompt: string;
  n: number;
  width: number;
  height: number;
  quality: string;
  // The images an edit sends, which GPT image models count as input tokens.
  inputImages: number;
  responseFormat: "url" | "b64_json";
  // Mixed into the colour, so an edit of a different image answers differently.
  seed: string;
}

class ImagesRequestError extends Error {
  constructor(
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

const largestSide = 4096;
const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const gptImage = (model: string) => model.startsWith("gpt-image");

// xAI's images endpoint: OpenAI's shape, an aspect ratio instead of a size (xAI's image docs).
const grokImage = (model: string) => model.startsWith("grok-imagine");
const grokRatios = [
  "1:1",
  "16:9",
  "9:16",
  "4:3",
  "3:4",
  "3:2",
  "2:3",
  "2:1",
  "1:2",
  "19.5:9",
  "9:19.5",
  "20:9",
  "9:20",
];

/** The picture a Grok aspect ratio stands for here: 1024 pixels on the long side. */
function grokSize(raw: Record<string, unknown>): string {
  for (const refused of ["size", "quality", "style"]) {
    if (raw[refused] !== undefined) throw new ImagesRequestError(`Argument not supported: ${refused}`, refused);
  }
  const ratio = raw.aspect_ratio ?? "1:1";
  if (typeof ratio !== "string" || !grokRatios.includes(ratio)) {
    throw new ImagesRequestError(`Invalid aspect_ratio: expected one of ${grokRatios.join(", ")}.`, "aspect_ratio");
  }
  const [across = 1, down = 1] = ratio.split(":").map(Number);
  const scale = 1024 / Math.max(across, down);
  return `${Math.round(across * scale)}x${Math.round(down * scale)}`;
}

function readImagesRequest(raw: Record<string, unknown>, seed: string): ImagesRequest {
  const { model, prompt } = raw;
  if (typeof prompt !== "string" || prompt === "")
    throw new ImagesRequestError("Missing required parameter: 'prompt'.", "prompt");
  const name = typeof model === "string" && model !== "" ? model : "dall-e-2";
  const n = raw.n === undefined ? 1 : Number(raw.n);
  if (!Number.isInteger(n) || n < 1 || n > 10) throw new ImagesRequestError("Invalid 'n': expected 1 to 10.", "n");
  const size = grokImage(name)
    ? grokSize(raw)
    : raw.size === undefined || raw.size === "auto"
      ? "1024x1024"
      : String(raw.size);
  const [width = 0, height = 0] = /^(\d+)x(\d+)$/.exec(size)?.slice(1).map(Number) ?? [];
  if (!(width > 0 && height > 0 && width <= largestSide && height <= largestSide)) {
    throw new ImagesRequestError(`Invalid value for 'size': '${size}'.`, "size");
  }
  // GPT image models always answer base64 and refuse the parameter, as OpenAI's do.
  if (gptImage(name) && raw.response_format !== undefined) {
    throw new ImagesRequestError("Unknown parameter: 'response_format'.", "response_format");
  }
  const format = raw.response_format ?? (gptImage(name) ? "b64_json" : "url");
  if (format !== "url" && format !== "b64_json") {
    throw new ImagesRequestError(`Invalid value for 'response_format': '${String(format)}'.`, "response_format");
  }
  const quality = typeof raw.quality === "string" ? raw.quality : "auto";
  return { model: name, prompt, n, width, height, quality, inputImages: 0, responseFormat: format, seed };
}

// Output tokens of one square image by quality: OpenAI's published counts for gpt-image-1 at
// 1024x1024 (the larger sizes take 1.5 times as many); the simulator's stand-in for every GPT
// image model, whose own counts OpenAI does not publish. xhigh and max count as high here.
const squareImageTokens: Record<string, number> = { low: 272, medium: 1056, high: 4160, xhigh: 4160, max: 4160 };
// What one input image counts here, and text as about four characters a token.
const inputImageTokens = 323;

/** The `usage` GPT image models answer with (openai-python's ImagesResponse.Usage). */
function imagesUsage(request: ImagesRequest) {
  const perImage = squareImageTokens[request.quality] ?? squareImageTokens.medium!;
  const output = request.n * (request.width === request.height ? perImage : Math.round(perImage * 1.5));
  const text = Math.max(1, Math.ceil(request.prompt.length / 4));
  const image = request.inputImages * inputImageTokens;
  return {
    input_tokens: text + image,
    input_tokens_details: { image_tokens: image, text_tokens: text },
    output_tokens: output,
    output_tokens_details: { image_tokens: output, text_tokens: 0 },
    total_tokens: text + image + output,
  };
}

/** A colour from the prompt, the picture's index and the seed: the same request paints the same images. */
function colourOf(request: ImagesRequest, index: number): [number, number, number] {
  const digest = createHash("sha256").update(`${request.seed}\u0000${request.prompt}\u0000${index}`).digest();
  return [digest[0]!, digest[1]!, digest[2]!];
}

const hex = (colour: [number, number, number]) => Buffer.from(colour).toString("hex");

async function answer(exchange: Exchange, state: SimulatorState, read: () => ImagesRequest): Promise<void> {
  if (!requireApiKey(exchange)) return;
  let request: ImagesRequest;
  try {
    request = read();
  } catch (error) {
    if (!(error instanceof ImagesRequestError)) throw error;
    sendOpenAIError(exchange, 400, error.message, { param: error.param });
    return;
  }
  const apiKey = exchange.request.headers.authorization?.replace(/^Bearer\s+/i, "");
  const fault = resolveFault(state.faults, request.model, request.prompt, apiKey);
  if (!(await applyLeadingFaults(exchange, fault, sendStatusFault))) return;
  const origin = `http://${exchange.request.headers.host ?? "127.0.0.1"}`;
  const data = Array.from({ length: request.n }, (_, index) => {
    const colour = colourOf(request, index);
    const item: Record<string, string> =
      request.responseFormat === "url"
        ? { url: `${origin}/_sim/generated/${hex(colour)}-${request.width}x${request.height}.png` }
        : { b64_json: solidPng(colour, request.width, request.height).toString("base64") };
    // Only dall-e-3 rewrites prompts.
    if (request.model === "dall-e-3") item.revised_prompt = `A detailed rendering of: ${request.prompt}`;
    return item;
  });
  const created = Math.floor(Date.now() / 1000);
  sendJson(exchange, 200, gptImage(request.model) ? { created, data, usage: imagesUsage(request) } : { created, data });
}

/** POST /v1/images/generations: real PNGs of the requested size, one colour each. */
export function imageGenerations(exchange: Exchange, state: SimulatorState): Promise<void> {
  return answer(exchange, state, () => {
    if (!isRecord(exchange.body)) throw new ImagesRequestError("The request body must be a JSON object.");
    return readImagesRequest(exchange.body, "");
  });
}

function single(form: FormBody, name: string): string | undefined {
  return form.fields.get(name)?.[0];
}

/** POST /v1/images/edits (multipart): `image` or repeated `image[]`, optional `mask`. */
export function imageEdits(exchange: Exchange, state: SimulatorState): Promise<void> {
  return answer(exchange, state, () => {
    const form = parseMultipart(exchange.bodyBytes, exchange.request.headers["content-type"]);
    if (!form) throw new ImagesRequestError("The request body must be multipart/form-data.");
    if (exchange.record) exchange.record.body = describeForm(form);
    const images = [...(form.files.get("image") ?? []), ...(form.files.get("image[]") ?? [])];
    if (images.length === 0) throw new ImagesRequestError("Missing required parameter: 'image'.", "image");
    const model = single(form, "model") ?? "dall-e-2";
    if (!gptImage(model) && !images[0]!.data.subarray(0, 4).equals(pngSignature)) {
      throw new ImagesRequestError("Invalid input image - format must be in ['png'].", "image");
    }
    const fields = Object.fromEntries([...form.fields].map(([name, values]) => [name, values[0]]));
    const seed = createHash("sha256").update(images[0]!.data).digest("hex");
    return { ...readImagesRequest({ ...fields, model }, seed), inputImages: images.length };
  });
}

/** GET /_sim/generated/{rrggbb}-{W}x{H}.png: what a url answer points at, painted again from its name. */
export function serveGeneratedImage(exchange: Exchange): void {
  const match = /^\/_sim\/generated\/([0-9a-f]{6})-(\d+)x(\d+)\.png$/.exec(exchange.path);
  const [colour = "", width = 0, height = 0] = match ? [match[1]!, Number(match[2]), Number(match[3])] : [];
  if (!(width > 0 && height > 0 && width <= largestSide && height <= largestSide)) {
    sendJson(exchange, 404, { error: { message: `No generated image at ${exchange.path}.` } });
    return;
  }
  const [red = 0, green = 0, blue = 0] = Buffer.from(colour, "hex");
  const png = solidPng([red, green, blue], width, height);
  writeHead(exchange, 200, { "content-type": "image/png", "content-length": png.length, "cache-control": "no-store" });
  exchange.response.end(png);
}
