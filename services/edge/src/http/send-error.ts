import { GatewayError, serverError } from "@gateway/platform";
import type { NextFunction, Request, Response } from "express";
import { closeAfterUnreadBody } from "./refused-body.js";

/** An ingress's own error body, which may name the request (Anthropic's do); OpenAI's is the default. */
export type ErrorBody = (error: GatewayError, requestId: string | undefined) => unknown;

/** Middleware: every error answered on this request (auth, parsing, routing, streams) takes `render`'s shape. */
export const speakErrorsAs = (render: ErrorBody) => (_request: Request, response: Response, next: NextFunction) => {
  response.locals.errorBody = render;
  next();
};

/**
 * Writes an error in the request's ingress shape (OpenAI's unless set by `speakErrorsAs`) with the
 * headers the official SDKs read to decide on a retry: `x-should-retry`, and
 * `retry-after-ms`/`retry-after` when a wait is known.
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
  closeAfterUnreadBody(response);
  const render = response.locals.errorBody as ErrorBody | undefined;
  const body = render ? render(gatewayError, response.locals.requestId) : gatewayError.toBody();
  response.status(gatewayError.httpStatus).json(body);
}
