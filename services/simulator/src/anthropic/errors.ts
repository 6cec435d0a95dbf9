import type { OutgoingHttpHeaders } from "node:http";
import { type Exchange, sendJson } from "../http.js";

// Anthropic's error body: {"type":"error","error":{"type","message"},"request_id"}.
// https://docs.anthropic.com/en/api/errors

const typeOfStatus: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

/** The error type Anthropic uses for a status: unlisted 4xx are invalid requests, unlisted 5xx API errors. */
export function anthropicErrorType(status: number): string {
  return typeOfStatus[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

export function anthropicErrorBody(exchange: Exchange, type: string, message: string) {
  return { type: "error", error: { type, message }, request_id: exchange.id };
}

export function sendAnthropicError(
  exchange: Exchange,
  status: number,
  message: string,
  headers: OutgoingHttpHeaders = {},
): void {
  const body = anthropicErrorBody(exchange, anthropicErrorType(status), message);
  sendJson(exchange, status, body, { "request-id": exchange.id, ...headers });
}

// What Anthropic says for the statuses clients handle specially; others get a generic message.
const statusMessages: Record<number, string> = {
  400: "Simulated bad request.",
  401: "invalid x-api-key",
  403: "Your API key does not have permission to use the specified resource.",
  404: "The requested resource could not be found.",
  413: "Request exceeds the maximum allowed number of bytes.",
  429: "This request would exceed the rate limit for your organization (simulated).",
  500: "Internal server error",
  504: "Request timed out (simulated).",
  529: "Overloaded",
};

export function sendStatusFault(exchange: Exchange, status: number, retryAfterMs: number): void {
  // Anthropic sends retry-after (whole seconds) with rate limits and overloads.
  const headers = status === 429 || status === 529 ? { "retry-after": String(Math.ceil(retryAfterMs / 1000)) } : {};
  sendAnthropicError(exchange, status, statusMessages[status] ?? `Simulated HTTP ${status} error.`, headers);
}

/** Anthropic wants `x-api-key` (any non-empty value passes) and an `anthropic-version`. */
export function requireAnthropicHeaders(exchange: Exchange): boolean {
  const headers = exchange.request.headers;
  const key = headers["x-api-key"];
  if (typeof key !== "string" || key.trim() === "") {
    sendAnthropicError(exchange, 401, "x-api-key header is required");
    return false;
  }
  const version = headers["anthropic-version"];
  if (typeof version !== "string" || version.trim() === "") {
    sendAnthropicError(exchange, 400, "anthropic-version: header is required");
    return false;
  }
  return true;
}
