import type { Caller } from "@gateway/proto/common/v1/common";
import type { EmbeddingServiceClient } from "@gateway/proto/router/v1/embeddings";
import type { Request, Response } from "express";
import { callRouter } from "../http/call-router.js";
import { embeddingRequestSchema } from "../openai-wire/embedding-request-schema.js";
import { renderEmbeddings, toCanonicalEmbeddings } from "../openai-wire/embeddings-wire.js";
import { validateBody } from "../openai-wire/validate-body.js";

const embeddingsDeadlineMs = 5 * 60_000;

/** POST /v1/embeddings: vectors from the router as floats, or as base64 float32 when asked. */
export function embeddings(service: EmbeddingServiceClient) {
  return async (request: Request, response: Response) => {
    const body = validateBody(embeddingRequestSchema, request.body);
    const canonical = toCanonicalEmbeddings(body, response.locals.caller as Caller);
    const list = await callRouter(service.createEmbeddings.bind(service), canonical, response, embeddingsDeadlineMs);
    response.json(renderEmbeddings(list, body.encoding_format ?? "float"));
  };
}
