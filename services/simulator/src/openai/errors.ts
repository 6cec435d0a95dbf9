import type { OutgoingHttpHeaders } from "node:http";
import { type Exchange, sendJson, writeHead } from "../http.js";
import { isRecord } from "../json.js";
import { RequestError } from "./chat-request.js";
import { framesStreamRefusals } from "./vendor-quirks.js";

export interface OpenAIErrorDetails {
  type?: string;
  param?: string | null;
  code?: string | null;
  headers?: OutgoingHttpHeaders;
}

/** Sends OpenAI's error shape: `{"error":{"message","type","param","code"}}`. */
export function sendOpenAIError(
  exchange: Exchange,
  status: number,
  message: string,
  details: OpenAIErrorDetails = {},
): void {
  const type = details.type ?? (status >= 500 ? "server_error" : "invalid_request_error");
  const error = { message, type, param: details.param ?? null, code: details.code ?? null };
  if (status === 400 && refusesAsEvent(exchange)) sendErrorEvent(exchange, { error, request_id: exchange.id });
  else sendJson(exchange, status, { error }, details.headers);
}

function refusesAsEvent(exchange: Exchange): boolean {
  const body = exchange.body;
  return isRecord(body) && body.stream === true && typeof body.model === "string" && framesStreamRefusals(body.model);
}

function sendErrorEvent(exchange: Exchange, payload: unknown): void {
  if (exchange.closed || exchange.response.headersSent) return;
  writeHead(exchange, 400, { "content-type": "text/event-stream; charset=utf-8" });
  exchange.response.end(`data: ${JSON.stringify(payload)}\n\n`);
}

// What OpenAI says for the statuses clients handle specially; others get a generic message.
const statusErrors: Record<number, [string, OpenAIErrorDetails]> = {
  400: ["Simulated bad request.", {}],
  401: ["Incorrect API key provided.", { code: "invalid_api_key" }],
  403: ["Simulated permission denied.", { code: "permission_denied" }],
  404: ["The model does not exist or you do not have access to it.", { code: "model_not_found" }],
  429: ["Rate limit reached for requests (simulated).", { type: "requests", code: "rate_limit_exceeded" }],
  500: ["The server had an error while processing your request. Sorry about that!", {}],
  503: ["The engine is currently overloaded, please try again later.", { code: "overloaded" }],
  529: ["The engine is currently overloaded, please try again later.", { code: "overloaded" }],
};

export function sendStatusFault(exchange: Exchange, status: number, retryAfterMs: number): void {
  const [message, details] = statusErrors[status] ?? [`Simulated HTTP ${status} error.`, {}];
  if (status !== 429) {
    sendOpenAIError(exchange, status, message, details);
    return;
  }
  // OpenAI words the wait in the message too, and sends it in whole seconds.
  const seconds = Math.ceil(retryAfterMs / 1000);
  sendOpenAIError(exchange, status, `${message} Please try again in ${seconds}s.`, {
    ...details,
    headers: { "retry-after": String(seconds) },
  });
}

/** Any non-empty bearer key passes; a missing one gets OpenAI's 401. */
export function requireApiKey(exchange: Exchange): boolean {
  const header = exchange.request.headers.authorization;
  if (header && /^Bearer\s+\S/i.test(header)) return true;
  const message =
    "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";
  sendOpenAIError(exchange, 401, message, { code: "invalid_api_key" });
  return false;
}

export function sendNotFound(exchange: Exchange): void {
  sendOpenAIError(exchange, 404, `Invalid URL (${exchange.method} ${exchange.path})`);
}

/** The request `parse` reads from the body, or undefined once its RequestError went out as OpenAI's 400. */
export function parsedOrRefused<T>(exchange: Exchange, parse: (body: unknown) => T): T | undefined {
  try {
    return parse(exchange.body);
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    sendOpenAIError(exchange, 400, error.message, { param: error.param, code: error.code });
    return undefined;
  }
}
