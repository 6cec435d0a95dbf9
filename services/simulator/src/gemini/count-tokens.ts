import { countPromptTokens } from "../answer.js";
import { type Exchange, sendJson } from "../http.js";
import { isRecord } from "../json.js";
import { requireApiKey, sendGeminiError } from "./errors.js";
import { GeminiRequestError, parseGenerateContentRequest } from "./generate-content-request.js";

const pathPattern = /^\/v1beta\/models\/([^/:]+):countTokens$/;

/**
 * POST /v1beta/models/{model}:countTokens, as Gemini answers it: `{contents}` or a whole
 * `{generateContentRequest}`, counted exactly as generateContent reports promptTokenCount.
 */
export function countTokens(exchange: Exchange): void {
  const [, model = ""] = pathPattern.exec(exchange.path) ?? [];
  if (!requireApiKey(exchange)) return;
  const body = exchange.body;
  const request = isRecord(body) && isRecord(body.generateContentRequest) ? body.generateContentRequest : body;
  try {
    const { messages } = parseGenerateContentRequest(model, request);
    sendJson(exchange, 200, { totalTokens: countPromptTokens(messages) });
  } catch (error) {
    if (!(error instanceof GeminiRequestError)) throw error;
    sendGeminiError(exchange, 400, error.message);
  }
}
