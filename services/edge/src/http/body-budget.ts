import { GatewayError } from "@gateway/shared";
import bytes from "bytes";
import type { Request, Response } from "express";

// Edge holds a JSON body several times over while it parses, validates and converts it (a
// 20 MB chat body took ~150 MB of heap), and router again while it works on it: a handful of
// maximal bodies at once would exhaust the heap and stop the process for every tenant. So the
// bytes of the bodies being handled at once are bounded; a request past the bound is refused
// before its body is read, with a 429 the SDKs retry.
const busy = (capacityBytes: number) =>
  new GatewayError(
    429,
    "requests",
    "too_many_large_requests",
    `The server is handling ${bytes.format(capacityBytes)} of request bodies at once; retry this request shortly.`,
    null,
    1_000,
  );

/** The request body bytes edge is working on at once, across every tenant. */
export class BodyBudget {
  private inUse = 0;

  constructor(readonly capacityBytes: number) {}

  /**
   * Holds `limitBytes` (or the declared Content-Length, when smaller) until the response ends
   * or the client goes; throws the 429 instead when that would pass the capacity.
   */
  hold(request: Request, response: Response, limitBytes: number): void {
    const declared = Number(request.headers["content-length"]);
    const held = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, limitBytes) : limitBytes;
    // Alone, a body is always taken: a capacity below the body limit must not refuse every large one.
    if (this.inUse > 0 && this.inUse + held > this.capacityBytes) throw busy(this.capacityBytes);
    this.inUse += held;
    response.once("close", () => {
      this.inUse -= held;
    });
  }
}
