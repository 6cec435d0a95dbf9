import { createHash } from "node:crypto";
import { applyLeadingFaults, resolveFault } from "../faults.js";
import { type Exchange, type SimulatorState, sendJson } from "../http.js";
import { isRecord } from "../json.js";
import { requireApiKey, sendGeminiError, sendStatusFault } from "./errors.js";
import { solidPng } from "./images.js";

const pathPattern = /^\/v1beta\/models\/([^/:]+):predict$/;

// Imagen 4's aspect ratios and the 1K image each stands for (Google's Imagen model pages).
const imagenSizes: Record<string, [number, number]> = {
  "1:1": [1024, 1024],
  "3:4": [896, 1280],
  "4:3": [1280, 896],
  "9:16": [768, 1408],
  "16:9": [1408, 768],
};
const mostImages = 4;

class PredictError extends Error {
  constructor(
    message: string,
    readonly code = 400,
  ) {
    super(message);
  }
}

interface Prediction {
  prompt: string;
  count: number;
  size: [number, number];
}

function readPrediction(model: string, body: unknown): Prediction {
  if (!model.startsWith("imagen-")) {
    throw new PredictError(
      `models/${model} is not found for API version v1beta, or is not supported for predict.`,
      404,
    );
  }
  const instances = isRecord(body) ? body.instances : undefined;
  const first = Array.isArray(instances) && instances.length === 1 ? instances[0] : undefined;
  const prompt = isRecord(first) ? first.prompt : undefined;
  if (typeof prompt !== "string" || prompt === "") {
    throw new PredictError("* instances[0].prompt: a non-empty prompt is required, in exactly one instance.");
  }
  const parameters = isRecord(body) && isRecord(body.parameters) ? body.parameters : {};
  const count = parameters.sampleCount ?? 1;
  if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > mostImages) {
    throw new PredictError(`* parameters.sampleCount: must be between 1 and ${mostImages}.`);
  }
  const ratio = parameters.aspectRatio ?? "1:1";
  const size = typeof ratio === "string" ? imagenSizes[ratio] : undefined;
  if (!size) {
    throw new PredictError(`* parameters.aspectRatio: must be one of ${Object.keys(imagenSizes).join(", ")}.`);
  }
  return { prompt, count: count as number, size };
}

/**
 * POST /v1beta/models/{model}:predict as Imagen answers it on the Gemini API: one PNG a sample,
 * of the size the aspect ratio stands for, its colour drawn from the prompt.
 */
export async function predict(exchange: Exchange, state: SimulatorState): Promise<void> {
  const [, model = ""] = pathPattern.exec(exchange.path) ?? [];
  const apiKey = requireApiKey(exchange);
  if (!apiKey) return;
  let prediction: Prediction;
  try {
    prediction = readPrediction(model, exchange.body);
  } catch (error) {
    if (!(error instanceof PredictError)) throw error;
    return sendGeminiError(exchange, error.code, error.message);
  }
  const fault = resolveFault(state.faults, model, prediction.prompt, apiKey);
  if (!(await applyLeadingFaults(exchange, fault, sendStatusFault))) return;
  const [width, height] = prediction.size;
  const predictions = Array.from({ length: prediction.count }, (_, index) => {
    const digest = createHash("sha256").update(`${prediction.prompt}\u0000${index}`).digest();
    const png = solidPng([digest[0]!, digest[1]!, digest[2]!], width, height);
    return { bytesBase64Encoded: png.toString("base64"), mimeType: "image/png" };
  });
  sendJson(exchange, 200, { predictions });
}
