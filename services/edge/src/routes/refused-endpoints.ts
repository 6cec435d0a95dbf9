import { GatewayError } from "@gateway/platform";
import express, { type Request, type Router } from "express";

// OpenAI API families this gateway does not offer (the spec leaves out fine-tuning, file,
// organization and billing management, and what builds on them), by path prefix.
const refused: ReadonlyArray<[prefix: string, capability: string]> = [
  ["/fine_tuning", "fine-tuning"],
  ["/fine-tunes", "fine-tuning"],
  ["/files", "file management"],
  ["/uploads", "file uploads"],
  ["/batches", "batch jobs"],
  ["/organization", "organization management"],
  ["/dashboard/billing", "billing management"],
  ["/billing", "billing management"],
  ["/assistants", "the Assistants API"],
  ["/threads", "the Assistants API"],
  ["/vector_stores", "vector stores"],
];

/**
 * 404 with code `unsupported_endpoint`, not 501: the official SDKs retry every 5xx, and a
 * capability that is not offered will not appear on a retry. 404 is also what OpenAI answers
 * for a path it does not serve, so clients already handle it (NotFoundError).
 */
const notOffered = (request: Request, capability: string) =>
  new GatewayError(
    404,
    "invalid_request_error",
    "unsupported_endpoint",
    `This gateway does not offer ${capability} (${request.method} ${request.originalUrl.split("?")[0]}).`,
  );

/** Answers every method on the refused families; mounted after authentication. */
export function refusedEndpoints(): Router {
  const router = express.Router();
  for (const [prefix, capability] of refused) {
    router.use(prefix, (request: Request) => {
      throw notOffered(request, capability);
    });
  }
  return router;
}
