import { BODY_BYTES_METADATA, type BodyBudget, tracedMetadata } from "@gateway/shared";
import type { Metadata } from "@grpc/grpc-js";
import type { Request, Response } from "express";

// Edge holds a JSON body several times over while it parses, validates and converts it, and
// router again while it works on it: the bytes of the bodies being handled at once are bounded
// (BODY_BYTES_IN_FLIGHT), and a request past the bound is refused before its body is read.

/**
 * Holds `limitBytes` (or the declared Content-Length, when smaller) of `budget` until the
 * response ends or the client goes; throws the 429 instead when that would pass the capacity.
 * The bytes held are what router is told the call's body weighs (see `routerMetadata`).
 */
export function holdBody(budget: BodyBudget, request: Request, response: Response, limitBytes: number): void {
  const declared = Number(request.headers["content-length"]);
  const held = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, limitBytes) : limitBytes;
  budget.take(held);
  response.locals.bodyBytes = held;
  response.once("close", () => budget.giveBack(held));
}

/**
 * Metadata for a router call made for this response: the trace context, and the body's bytes,
 * which router counts against its own budget (several edges may send to one router).
 */
export function routerMetadata(response: Response): Metadata {
  const metadata = tracedMetadata();
  const held = response.locals.bodyBytes;
  if (typeof held === "number") metadata.set(BODY_BYTES_METADATA, String(held));
  return metadata;
}
