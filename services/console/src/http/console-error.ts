import type { Logger } from "@gateway/platform";
import { GatewayError } from "@gateway/platform";
import type { ErrorRequestHandler, Response } from "express";
import type { z } from "zod";

/** An answer the console's API gives as `{"error":{"code","message"}}`. */
export class ConsoleError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const notSignedIn = () => new ConsoleError(401, "not_signed_in", "Sign in first.");
export const csrfFailed = () =>
  new ConsoleError(403, "csrf_failed", "This request lacks the session's CSRF token or comes from another origin.");
export const notAdmin = () => new ConsoleError(403, "not_admin", "Only an administrator may do this.");
export const notFound = (what = "Not found.") => new ConsoleError(404, "not_found", what);
export const badRequest = (message: string, code = "invalid_request") => new ConsoleError(400, code, message);

export function sendError(response: Response, error: ConsoleError): void {
  response.status(error.status).json({ error: { code: error.code, message: error.message } });
}

/** Parses request input with zod; a problem is a 400 naming the field. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".");
  throw badRequest(`${field ? `${field}: ` : ""}${issue?.message ?? "invalid input"}`);
}

/** What ledger (or our own code) threw, as the contract's error shape; anything unexpected is a logged 500. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, request, response, _next) => {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    if (error instanceof ConsoleError) return sendError(response, error);
    if (error instanceof GatewayError) {
      if (error.httpStatus >= 500) logger.warn({ err: error, path: request.path }, "ledger call failed");
      const code = error.code ?? error.type;
      return sendError(response, new ConsoleError(error.httpStatus, code, error.message));
    }
    // body-parser's errors (malformed JSON, too large) carry their status.
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      return sendError(response, new ConsoleError(status, "invalid_request", "The request body could not be read."));
    }
    logger.error({ err: error, path: request.path }, "console request failed");
    sendError(response, new ConsoleError(500, "server_error", "The console had an error while handling this request."));
  };
}
