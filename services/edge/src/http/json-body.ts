import { GatewayError, payloadTooLarge, startPiece } from "@gateway/platform";
import bytes from "bytes";
import type { RequestHandler } from "express";
import { acceptBody } from "./accept-body.js";
import { type BodyAdmission, declaredBytes, heldBytes, holdBody, meterBody } from "./body-budget.js";
import { refuseStalledBody } from "./body-transfer.js";
import { parseJsonBytes, unsupportedCharset } from "./json-text.js";
import { structureWeight, VALUE_WEIGHT_BYTES } from "./json-weight.js";
import { readBody } from "./read-body.js";

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
 * Body-reader failures with a 4xx status are the client's (a body that grew past its limit or
 * differs from its Content-Length, an upload cut short) and become OpenAI-shaped errors.
 */
function clientErrorOf(error: unknown, limitBytes: number) {
  // The body budget's own refusal (a chunk past it) is already the client's answer.
  if (error instanceof GatewayError) return error;
  const { type, status, message } = error as { type?: string; status?: number; message?: string };
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
 * bodies in flight: its bytes as they arrive, and what its parsed structure will cost from
 * before it is parsed. With `keepBytes` the bytes stay readable (`rawJsonBody`) for a route that
 * relays the body as sent. A body of more than `deferAboveValues` values is left unparsed
 * (`deferredJsonBody`), for its route to hand to a worker thread.
 */
// The bytes of the bodies read with `keepBytes`, for as long as their request lives.
const rawBodies = new WeakMap<object, Uint8Array>();

/** The JSON body's bytes as the client sent them (decompressed), when its route keeps them. */
export const rawJsonBody = (request: object): Uint8Array | undefined => rawBodies.get(request);

// The bytes of the bodies left unparsed for a worker, for as long as their request lives.
const deferredBodies = new WeakMap<object, Uint8Array>();

/** A body of more JSON values than its route's `deferAboveValues`, as bytes not yet parsed. */
export const deferredJsonBody = (request: object): Uint8Array | undefined => deferredBodies.get(request);

export function jsonBody(
  limitBytes: number,
  admission: BodyAdmission,
  keepBytes = false,
  deferAboveValues = Number.POSITIVE_INFINITY,
): RequestHandler {
  return (request, response, next) => {
    if (Number(request.headers["content-length"]) > limitBytes) return next(tooLarge(limitBytes));
    const charsetError = unsupportedCharset(request.headers["content-type"]);
    if (charsetError) return next(charsetError);
    // A body of another type (or none) is left unread for the route to refuse.
    if (!request.is("application/json")) return next();
    const timed = startPiece("body");
    meterBody(admission, request, response, declaredBytes(request, limitBytes));
    acceptBody(request, response, () => {
      refuseStalledBody(request, response);
      readBody(request, limitBytes)
        .then((bytes) => {
          // Held before JSON.parse builds anything: the bytes inflated beyond those that arrived,
          // and what the parsed structure will cost.
          const inflated = Math.max(0, bytes.length - heldBytes(response));
          const weight = structureWeight(bytes);
          holdBody(admission, request, response, inflated + weight);
          // Already counted against the budget as they arrived: keeping them costs nothing new.
          if (keepBytes) rawBodies.set(request, bytes);
          if (weight > deferAboveValues * VALUE_WEIGHT_BYTES) {
            deferredBodies.set(request, bytes);
            return undefined;
          }
          return parseJsonBytes(bytes);
        })
        .then(
          (body) => {
            request.body = body;
            timed?.();
            next();
          },
          (error: unknown) => next(clientErrorOf(error, limitBytes) ?? error),
        );
    });
  };
}
