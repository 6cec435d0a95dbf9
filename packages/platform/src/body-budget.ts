import bytes from "bytes";
import { GatewayError } from "./errors.js";
import { gatewayMeter } from "./metrics.js";

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

// The part of a budget one holder (an account) may fill with several requests at once: the
// rest stays free for every other tenant, however many large bodies one of them sends.
const HOLDER_SHARE = 4;

/**
 * What one request holds of a budget. It only grows, and gives everything back once, however
 * many of its ends (answer finished, client gone, socket closed, error) call `release`.
 */
export class BodyHold {
  private heldBytes = 0;
  private released = false;

  constructor(
    private readonly budget: BodyBudget,
    readonly holder: string | undefined,
  ) {}

  get bytes(): number {
    return this.heldBytes;
  }

  /** Takes `size` more bytes, or refuses with the 429 (nothing is taken then). */
  grow(size: number): void {
    if (this.released || size <= 0) return;
    this.budget.take(size, this.holder, this.heldBytes);
    this.heldBytes += size;
  }

  /**
   * Replaces `reserved` bytes of what it holds (taken before their size was known) by `actual`:
   * grows by the difference (or refuses), or gives the excess back.
   */
  settle(reserved: number, actual: number): void {
    if (actual > reserved) {
      this.grow(actual - reserved);
      return;
    }
    const excess = Math.min(reserved - actual, this.heldBytes);
    if (this.released || excess <= 0) return;
    this.heldBytes -= excess;
    this.budget.giveBack(excess, this.holder);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.giveBack(this.heldBytes, this.holder);
    this.heldBytes = 0;
  }
}

/**
 * Request body bytes a process works on at once, across every tenant: a handful of maximal
 * bodies at once (a 20 MB chat body costs edge and router ~150 MB of heap each) would exhaust
 * the heap and stop the process for everyone. A holder (an account) may fill a quarter of it
 * with several requests; one request alone is always taken.
 */
export class BodyBudget {
  private inUse = 0;
  private readonly byHolder = new Map<string, number>();

  constructor(readonly capacityBytes: number) {}

  get bytesInUse(): number {
    return this.inUse;
  }

  /** A hold for one request of `holder`, empty until it grows. */
  hold(holder?: string): BodyHold {
    return new BodyHold(this, holder);
  }

  /**
   * Takes `size` bytes, or refuses with the 429. A request alone (in the process, or among its
   * holder's requests) is always taken, counting the `alreadyHeld` bytes it holds itself: a
   * capacity below the body limit must not refuse every large one. A call with no body is
   * always taken too.
   */
  take(size: number, holder?: string, alreadyHeld = 0): void {
    if (size <= 0) return;
    const others = this.inUse - alreadyHeld;
    if (others > 0 && this.inUse + size > this.capacityBytes) throw tooManyLargeRequests(this.capacityBytes);
    if (holder !== undefined) {
      const holderInUse = this.byHolder.get(holder) ?? 0;
      const holderCapacity = this.capacityBytes / HOLDER_SHARE;
      if (holderInUse - alreadyHeld > 0 && holderInUse + size > holderCapacity) {
        throw tooManyLargeRequests(this.capacityBytes);
      }
      this.byHolder.set(holder, holderInUse + size);
    }
    this.inUse += size;
  }

  giveBack(size: number, holder?: string): void {
    if (size <= 0) return;
    this.inUse -= size;
    if (holder === undefined) return;
    const left = (this.byHolder.get(holder) ?? 0) - size;
    if (left > 0) this.byHolder.set(holder, left);
    else this.byHolder.delete(holder);
  }
}

/** Exports what a budget holds: with no request in flight it must be back at zero. */
export function observeBodyBudget(budget: BodyBudget): void {
  gatewayMeter()
    .createObservableGauge("gateway_body_budget_in_use_bytes", {
      description: "What the requests being handled weigh against the body budget (BODY_BYTES_IN_FLIGHT)",
      unit: "By",
    })
    .addCallback((result) => result.observe(budget.bytesInUse));
}
