import bytes from "bytes";
import { GatewayError } from "./errors.js";

/** The JSON body bytes edge declares to router for the request a call carries (router's own budget reads it). */
export const BODY_BYTES_METADATA = "x-gateway-body-bytes";

/** The 429 for a request refused because the bodies being handled at once would pass `capacityBytes`; the SDKs retry it. */
export const tooManyLargeRequests = (capacityBytes: number) =>
  new GatewayError(
    429,
    "requests",
    "too_many_large_requests",
    `The server is handling ${bytes.format(capacityBytes)} of request bodies at once; retry this request shortly.`,
    null,
    1_000,
  );

/**
 * Request body bytes a process works on at once, across every tenant: a handful of maximal
 * bodies at once (a 20 MB chat body costs edge and router ~150 MB of heap each) would exhaust
 * the heap and stop the process for everyone.
 */
export class BodyBudget {
  private inUse = 0;

  constructor(readonly capacityBytes: number) {}

  /**
   * Takes `size` bytes, or refuses with the 429. Alone, a body is always taken (a capacity below
   * the body limit must not refuse every large one), and so is a call with no body.
   */
  take(size: number): void {
    if (size > 0 && this.inUse > 0 && this.inUse + size > this.capacityBytes) {
      throw tooManyLargeRequests(this.capacityBytes);
    }
    this.inUse += size;
  }

  giveBack(size: number): void {
    this.inUse -= size;
  }
}
