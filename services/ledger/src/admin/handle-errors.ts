import { GatewayError, invalidRequest, type Logger, notFound, serverError } from "@gateway/platform";
import type { ErrorRequestHandler, RequestHandler } from "express";

export const unknownRoute: RequestHandler = (request, _response, next) => {
  next(notFound(`Unknown route: ${request.method} ${request.path}`));
};

/** Renders every failure as an OpenAI-shaped error; anything unexpected is logged and hidden. */
export function handleErrors(logger: Logger): ErrorRequestHandler {
  return (error, request, response, _next) => {
    const gatewayError = toGatewayError(error);
    if (gatewayError.httpStatus >= 500) logger.error({ err: error, path: request.path }, "HTTP request failed");
    response.status(gatewayError.httpStatus).json(gatewayError.toBody());
  };
}

function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  // express.json() marks its own failures with a `type` and an HTTP status.
  const bodyError = error as { type?: string; status?: number };
  if (bodyError.type === "entity.parse.failed") return invalidRequest("The request body is not valid JSON.");
  if (bodyError.type === "entity.too.large") {
    return new GatewayError(413, "invalid_request_error", "request_too_large", "The request body is too large.");
  }
  if (bodyError.status && bodyError.status >= 400 && bodyError.status < 500) {
    return invalidRequest("The request body could not be read.");
  }
  return serverError();
}
