import type { IncomingMessage, ServerResponse } from "node:http";
import { GatewayError, invalidRequest, payloadTooLarge } from "@gateway/shared";
import bytes from "bytes";
import express, { type Request, type RequestHandler, type Response } from "express";
import { acceptBody } from "./accept-body.js";
import { type BodyAdmission, declaredBytes, holdBody } from "./body-budget.js";
import { refuseStalledBody } from "./body-transfer.js";
import { refuseDeepJson } from "./json-depth.js";
import { structureWeight } from "./json-weight.js";

/**
 * The largest JSON body, in bytes, of the endpoints that take less than a conversation (chat,
 * Responses and legacy completions carry base64 images and take the deployment's BODY_LIMIT).
 */
export const smallJsonBodyLimits = {
  // 2048 inputs of text or token ids: OpenAI's 300k-token request ceiling fits well within.
  embeddings: 4 * 1024 * 1024,
  // A prompt of at most 32,000 characters, even written as \u escapes.
  imageGenerations: 256 * 1024,
  videoSubmit: 256 * 1024,
};

const tooLarge = (limitBytes: number) =>
  payloadTooLarge(`The request body is too large: this endpoint takes at most ${bytes.format(limitBytes)}.`);

/**
 * Body-parser failures with a 4xx status are the client's (bad JSON, a body that grew past its
 * limit, an unsupported encoding or charset, an upload cut short) and become OpenAI-shaped errors.
 */
function clientErrorOf(error: unknown, limitBytes: number) {
  // Ours, thrown by the depth check.
  if (error instanceof GatewayError) return error;
  const { type, status, message } = error as { type?: string; status?: number; message?: string };
  if (type === "entity.parse.failed") {
    return invalidRequest("We could not parse the JSON body of your request. Send valid JSON.", null, "invalid_json");
  }
  if (type === "entity.too.large") return tooLarge(limitBytes);
  if (status !== undefined && status >= 400 && status < 500) {
    // The parser's own words, cut short: they may quote a header the client wrote.
    const reason = `We could not read the body of your request: ${String(message).slice(0, 200)}.`;
    return new GatewayError(
      status,
      "invalid_request_error",
      type?.replaceAll(".", "_") ?? "invalid_request_error",
      reason,
    );
  }
  return undefined;
}

/**
 * Reads and parses a JSON body of at most `limitBytes`. Mounted per route, after
 * authentication, so only authenticated callers ever make edge read or parse a body; every
 * JSON body edge parses goes through here. A body that declares more than the limit is refused
 * before a byte of it is read (Node discards the rest); one that grows past it is cut off there,
 * and one that stalls is a 408. While edge works on it, the body counts against the budget of
 * bodies in flight: its declared bytes from before it is read, and what its parsed structure
 * will cost from before it is parsed.
 */
export function jsonBody(limitBytes: number, admission: BodyAdmission): RequestHandler {
  // Nesting and size are checked on the raw bytes, before JSON.parse builds anything.
  const verify = (request: IncomingMessage, response: ServerResponse, body: Buffer) => {
    refuseDeepJson(request, response, body);
    holdBody(admission, request as Request, response as Response, structureWeight(body));
  };
  const parse = express.json({ limit: limitBytes, verify });
  return (request, response, next) => {
    if (Number(request.headers["content-length"]) > limitBytes) return next(tooLarge(limitBytes));
    holdBody(admission, request, response, declaredBytes(request, limitBytes));
    acceptBody(request, response, () => {
      refuseStalledBody(request, response);
      parse(request, response, (error?: unknown) => next(error && (clientErrorOf(error, limitBytes) ?? error)));
    });
  };
}
