import { GatewayError, serverError } from "@gateway/shared";
import type { Response } from "express";

/** How an ingress in another wire format (Anthropic's) shapes its errors; OpenAI's otherwise. */
export type ErrorBodyOf = (error: GatewayError, requestId: string | undefined) => unknown;

/**
 * Writes an error (OpenAI-shaped unless the route set `response.locals.errorBodyOf`) with the headers the official SDKs read to decide on a
 * retry: `x-should-retry`, and `retry-after-ms`/`retry-after` when a wait is known.
 */
export function sendError(response: Response, error: unknown): void {
  const gatewayError = error instanceof GatewayError ? error : serverError();
  // Read by the request metrics (metrics/count-requests.ts) as the error's class.
  response.locals.errorType = gatewayError.type;
  response.setHeader("x-should-retry", String(gatewayError.retryable));
  if (gatewayError.retryAfterMs > 0) {
    response.setHeader("retry-after-ms", String(gatewayError.retryAfterMs));
    response.setHeader("retry-after", String(Math.ceil(gatewayError.retryAfterMs / 1000)));
  }
  for (const [name, value] of Object.entries(gatewayError.headers)) response.setHeader(name, value);
  const errorBodyOf = response.locals.errorBodyOf as ErrorBodyOf | undefined;
  const body = errorBodyOf ? errorBodyOf(gatewayError, response.locals.requestId) : gatewayError.toBody();
  response.status(gatewayError.httpStatus).json(body);
}
