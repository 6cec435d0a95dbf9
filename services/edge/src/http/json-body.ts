import { GatewayError, invalidRequest, payloadTooLarge } from "@gateway/shared";
import express, { type RequestHandler } from "express";
import { acceptBody } from "./accept-body.js";
import { refuseDeepJson } from "./json-depth.js";

/**
 * The largest JSON body of the endpoints that take less than a conversation (chat, Responses
 * and legacy completions carry base64 images and take the deployment's BODY_LIMIT). A body
 * that declares more is refused with a 413 before a byte of it is read; one that grows past
 * its limit mid-stream is cut off there.
 */
export const smallJsonBodyLimits = {
  // 2048 inputs of text or token ids: OpenAI's 300k-token request ceiling fits well within.
  embeddings: "4mb",
  // A prompt of at most 32,000 characters, even written as \u escapes.
  imageGenerations: "256kb",
  videoSubmit: "256kb",
};

/**
 * Body-parser failures with a 4xx status are the client's (bad JSON, an oversized body, an
 * unsupported encoding or charset, an upload cut short) and become OpenAI-shaped errors.
 */
function clientErrorOf(error: unknown, limit: string) {
  if (error instanceof GatewayError) return error;
  const { type, status, message } = error as { type?: string; status?: number; message?: string };
  if (type === "entity.parse.failed") {
    return invalidRequest("We could not parse the JSON body of your request. Send valid JSON.", null, "invalid_json");
  }
  if (type === "entity.too.large") {
    return payloadTooLarge(`The request body is too large: this endpoint takes at most ${limit}.`);
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new GatewayError(status, "invalid_request_error", "invalid_request_error", String(message));
  }
  return undefined;
}

/**
 * Reads and parses a JSON body of at most `limit` (body-parser's units: "256kb", "20mb").
 * Mounted per route, after authentication, so only authenticated callers ever make edge read
 * or parse a body; every JSON body edge parses goes through here.
 */
export function jsonBody(limit: string): RequestHandler {
  // Nesting is checked on the raw bytes, before JSON.parse builds anything.
  const parse = express.json({ limit, verify: refuseDeepJson });
  return (request, response, next) =>
    acceptBody(request, response, () =>
      parse(request, response, (error?: unknown) => next(error && (clientErrorOf(error, limit) ?? error))),
    );
}
