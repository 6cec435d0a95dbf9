import { countInputTokens, type EmbeddingInput, embeddingShape, embeddingVector } from "../embedding-vectors.js";
import { applyLeadingFaults, resolveFault } from "../faults.js";
import { type Exchange, type SimulatorState, sendJson } from "../http.js";
import { isRecord } from "../json.js";
import { RequestError } from "./chat-request.js";
import { requireApiKey, sendOpenAIError, sendStatusFault } from "./errors.js";

interface EmbeddingsRequest {
  model: string;
  inputs: EmbeddingInput[];
  dimensions: number | undefined;
  base64: boolean;
}

const largestBatch = 2048;
const isTokenList = (value: unknown): value is number[] =>
  Array.isArray(value) && value.length > 0 && value.every((entry) => Number.isInteger(entry) && entry >= 0);

function inputsOf(value: unknown): EmbeddingInput[] {
  const invalid = () => new RequestError("'$.input' is invalid. Please check the API reference.", "input");
  if (typeof value === "string") {
    if (value === "") throw invalid();
    return [value];
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > largestBatch) throw invalid();
  if (isTokenList(value)) return [value];
  if (value.every((entry) => typeof entry === "string" && entry !== "")) return value as string[];
  if (value.every(isTokenList)) return value;
  throw invalid();
}

export function parseEmbeddingsRequest(body: unknown): EmbeddingsRequest {
  if (!isRecord(body)) throw new RequestError("The request body must be a JSON object.");
  if (typeof body.model !== "string" || body.model === "") throw new RequestError("you must provide a model parameter");
  const shape = embeddingShape(body.model);
  const dimensions = body.dimensions ?? undefined;
  if (dimensions !== undefined) {
    if (!shape.resizable) throw new RequestError("This model does not support specifying dimensions.", "dimensions");
    if (!Number.isInteger(dimensions) || (dimensions as number) < 1 || (dimensions as number) > shape.size) {
      throw new RequestError(`Invalid value for 'dimensions': expected 1 to ${shape.size}.`, "dimensions");
    }
  }
  const format = body.encoding_format ?? "float";
  if (format !== "float" && format !== "base64") {
    throw new RequestError("Invalid value for 'encoding_format': expected 'float' or 'base64'.", "encoding_format");
  }
  return {
    model: body.model,
    inputs: inputsOf(body.input),
    dimensions: dimensions as number | undefined,
    base64: format === "base64",
  };
}

/** Little-endian float32, as OpenAI's base64 embeddings are. */
const base64Of = (values: number[]) => Buffer.from(new Float32Array(values).buffer).toString("base64");

/** POST /v1/embeddings, answered as OpenAI would, with deterministic unit vectors. */
export async function embeddings(exchange: Exchange, state: SimulatorState): Promise<void> {
  if (!requireApiKey(exchange)) return;
  let request: EmbeddingsRequest;
  try {
    request = parseEmbeddingsRequest(exchange.body);
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    return sendOpenAIError(exchange, 400, error.message, { param: error.param, code: error.code });
  }
  const apiKey = exchange.request.headers.authorization?.replace(/^Bearer\s+/i, "");
  const texts = request.inputs.filter((input) => typeof input === "string").join(" ");
  const fault = resolveFault(state.faults, request.model, texts, apiKey);
  if (!(await applyLeadingFaults(exchange, fault, sendStatusFault))) return;
  const tokens = request.inputs.reduce((sum, input) => sum + countInputTokens(input), 0);
  sendJson(exchange, 200, {
    object: "list",
    data: request.inputs.map((input, index) => {
      const vector = embeddingVector(request.model, input, request.dimensions);
      return { object: "embedding", index, embedding: request.base64 ? base64Of(vector) : vector };
    }),
    model: request.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}
