import { embeddingShape, embeddingVector } from "../embedding-vectors.js";
import { applyLeadingFaults, resolveFault } from "../faults.js";
import { type Exchange, type SimulatorState, sendJson } from "../http.js";
import { isRecord } from "../json.js";
import { requireApiKey, sendGeminiError, sendStatusFault } from "./errors.js";

class EmbedRequestError extends Error {}

interface EmbedRequest {
  text: string;
  dimensions: number | undefined;
}

const pathPattern = /^\/v1beta\/models\/([^/:]+):(embedContent|batchEmbedContents)$/;

/** Gemini takes camelCase and snake_case field names alike. */
const field = (record: Record<string, unknown>, camel: string, snake: string) => record[camel] ?? record[snake];

function embedRequestOf(value: unknown, model: string, where: string): EmbedRequest {
  if (!isRecord(value)) throw new EmbedRequestError(`Invalid JSON payload: ${where} must be an object.`);
  const content = value.content;
  const parts = isRecord(content) && Array.isArray(content.parts) ? content.parts : undefined;
  if (!parts || parts.length === 0) throw new EmbedRequestError(`* ${where}.content.parts: must not be empty.`);
  const texts = parts.map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : undefined));
  if (texts.some((text) => text === undefined)) {
    throw new EmbedRequestError(`* ${where}.content.parts: only text parts can be embedded.`);
  }
  const dimensions = field(value, "outputDimensionality", "output_dimensionality");
  const size = embeddingShape(model).size;
  if (
    dimensions !== undefined &&
    (!Number.isInteger(dimensions) || (dimensions as number) < 1 || (dimensions as number) > size)
  ) {
    throw new EmbedRequestError(`* ${where}.outputDimensionality: must be between 1 and ${size}.`);
  }
  return { text: texts.join(" "), dimensions: dimensions as number | undefined };
}

function parseRequests(body: unknown, model: string, batch: boolean): EmbedRequest[] {
  if (!batch) return [embedRequestOf(body, model, "request")];
  const requests = isRecord(body) ? body.requests : undefined;
  if (!Array.isArray(requests) || requests.length === 0) throw new EmbedRequestError("* requests: must not be empty.");
  return requests.map((request, index) => {
    const named = isRecord(request) ? request.model : undefined;
    if (named !== `models/${model}`) {
      throw new EmbedRequestError(`* requests[${index}].model: must be models/${model}, the model of the URL.`);
    }
    return embedRequestOf(request, model, `requests[${index}]`);
  });
}

/**
 * POST /v1beta/models/{model}:embedContent and :batchEmbedContents, answered as Gemini would:
 * deterministic unit vectors and, like Gemini, no token usage.
 */
export async function embedContent(exchange: Exchange, state: SimulatorState): Promise<void> {
  const [, model = "", method] = pathPattern.exec(exchange.path) ?? [];
  const apiKey = requireApiKey(exchange);
  if (!apiKey) return;
  let requests: EmbedRequest[];
  try {
    if (exchange.body === undefined) throw new EmbedRequestError("Invalid JSON payload received.");
    requests = parseRequests(exchange.body, model, method === "batchEmbedContents");
  } catch (error) {
    if (!(error instanceof EmbedRequestError)) throw error;
    return sendGeminiError(exchange, 400, error.message);
  }
  const fault = resolveFault(state.faults, model, requests.map((request) => request.text).join(" "), apiKey);
  if (!(await applyLeadingFaults(exchange, fault, sendStatusFault))) return;
  const values = requests.map((request) => ({ values: embeddingVector(model, request.text, request.dimensions) }));
  if (method === "embedContent") return sendJson(exchange, 200, { embedding: values[0] });
  sendJson(exchange, 200, { embeddings: values });
}
