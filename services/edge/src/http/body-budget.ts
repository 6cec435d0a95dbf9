import type { IncomingMessage } from "node:http";
import { type Readable, Transform } from "node:stream";
import { BODY_BYTES_METADATA, type BodyBudget, type BodyHold, tracedMetadata } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { Metadata } from "@grpc/grpc-js";
import type { Request, Response } from "express";
import type { QuotaRefusals } from "./quota-refusals.js";

// Edge holds a body several times over while it parses, validates and converts it, and router
// again while it works on it: what the requests being handled at once weigh is bounded
// (BODY_BYTES_IN_FLIGHT), and a request past the bound is refused before its body is read.
// A request's weight is its body's bytes, plus what its parsed structure costs beyond them
// (http/json-weight.ts), plus a stored conversation it loads (previous_response_id).

const holds = new WeakMap<Response, BodyHold>();

/** What a request's body is admitted by: the process's budget, and the accounts just refused for their balance. */
export interface BodyAdmission {
  budget: BodyBudget;
  unpaid: QuotaRefusals;
}

/**
 * The hold of this response's request on `budget`, made on first use and given back exactly
 * once: when the response closes (answered, or the client gone) or its connection does,
 * whichever comes first. A request whose connection is already gone holds nothing.
 */
function holdOf(budget: BodyBudget, request: Request, response: Response): BodyHold {
  const existing = holds.get(response);
  if (existing) return existing;
  const hold = budget.hold((response.locals.caller as Caller | undefined)?.accountId);
  holds.set(response, hold);
  const { socket } = request;
  const release = () => {
    hold.release();
    socket.off("close", release);
  };
  if (socket.destroyed || response.writableEnded) release();
  else {
    response.once("close", release);
    socket.once("close", release);
  }
  return hold;
}

/**
 * Adds `size` bytes to what this request holds of the budget until its response ends or its
 * client goes; throws the 429 instead when that would pass the capacity (or its account's
 * share of it), or when it is large and its account was just refused for its balance. What
 * the request holds is what router is told the call weighs.
 */
export function holdBody(
  { budget, unpaid }: BodyAdmission,
  request: Request,
  response: Response,
  size: number,
): BodyHold {
  const hold = holdOf(budget, request, response);
  unpaid.check(hold.holder, size);
  hold.grow(size);
  return hold;
}

const meters = new WeakMap<IncomingMessage, Transform>();

/**
 * Holds a request's body against the budget as its bytes arrive rather than as it declares
 * them: a client that stops sending holds only what it sent (and soon gets its 408,
 * body-transfer.ts), however large a body it announced. An account just refused for its
 * balance is refused before a byte is read when the body it declares is large. The body is
 * then read from `meteredBody(request)`, which fails with the 429 once a chunk would pass the
 * budget (the rest of the body stays unread).
 */
export function meterBody(admission: BodyAdmission, request: Request, response: Response, declared: number): void {
  const hold = holdOf(admission.budget, request, response);
  admission.unpaid.check(hold.holder, declared);
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        hold.grow(chunk.length);
        done(null, chunk);
      } catch (error) {
        done(error as Error);
      }
    },
  });
  meters.set(request, meter);
  request.pipe(meter);
}

/** The body of a request, read through its meter when it has one. */
export const meteredBody = (request: IncomingMessage): Readable => meters.get(request) ?? request;

/** Stops reading a body through its meter (the read was abandoned): the rest is left to Node. */
export function stopMetering(request: IncomingMessage): void {
  const meter = meters.get(request);
  if (meter) request.unpipe(meter);
}

/** What this response's request holds of the budget so far. */
export const heldBytes = (response: Response): number => holds.get(response)?.bytes ?? 0;

/** What a request is about to read: its declared Content-Length, or the limit when it declares none. */
export function declaredBytes(request: Request, limitBytes: number): number {
  const declared = Number(request.headers["content-length"]);
  return Number.isFinite(declared) && declared >= 0 ? Math.min(declared, limitBytes) : limitBytes;
}

/**
 * Metadata for a router call made for this response: the trace context, and what the request
 * weighs, which router counts against its own budget (several edges may send to one router).
 */
export function routerMetadata(response: Response): Metadata {
  const metadata = tracedMetadata();
  const hold = holds.get(response);
  if (hold) metadata.set(BODY_BYTES_METADATA, String(hold.bytes));
  return metadata;
}
