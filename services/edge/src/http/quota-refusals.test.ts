import { EventEmitter } from "node:events";
import type { Request, Response } from "express";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LARGE_BODY_BYTES, QuotaRefusals } from "./quota-refusals.js";

// One answered request through the middleware: its finish reports `errorType` for `accountId`.
function answer(refusals: QuotaRefusals, accountId: string, errorType: string | undefined): void {
  const response = Object.assign(new EventEmitter(), { locals: { caller: { accountId }, errorType } });
  refusals.watch({} as Request, response as unknown as Response, () => {});
  response.emit("finish");
}

// What edge answers a large request from the account: refused at edge, or sent on to router.
function largeRequest(refusals: QuotaRefusals, accountId: string): "refused" | "sent" {
  try {
    refusals.check(accountId, LARGE_BODY_BYTES);
    return "sent";
  } catch {
    return "refused";
  }
}

describe("QuotaRefusals", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("refuses an account's large requests for 5 s after router refused it for its balance", () => {
    const refusals = new QuotaRefusals();
    answer(refusals, "a", "insufficient_quota");
    expect(largeRequest(refusals, "a")).toBe("refused");
    expect(() => refusals.check("a", LARGE_BODY_BYTES - 1)).not.toThrow();
    expect(largeRequest(refusals, "b")).toBe("sent");
    vi.advanceTimersByTime(5_001);
    expect(largeRequest(refusals, "a")).toBe("sent");
  });

  it("lets a topped-up account through within 5 s even while it keeps sending large requests", () => {
    const refusals = new QuotaRefusals();
    answer(refusals, "a", "insufficient_quota");
    for (let second = 0; second < 4; second += 1) {
      vi.advanceTimersByTime(1_000);
      expect(largeRequest(refusals, "a")).toBe("refused");
      // Edge's own refusal is answered as insufficient_quota as well: it must not renew the memory.
      answer(refusals, "a", "insufficient_quota");
    }
    vi.advanceTimersByTime(1_001);
    expect(largeRequest(refusals, "a")).toBe("sent");
  });

  it("remembers no account for an answer that was not a balance refusal", () => {
    const refusals = new QuotaRefusals();
    answer(refusals, "a", "rate_limit_exceeded");
    answer(refusals, "a", undefined);
    expect(largeRequest(refusals, "a")).toBe("sent");
  });
});
