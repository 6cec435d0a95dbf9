import { describe, expect, it } from "vitest";
import {
  FaultQueue,
  FaultSpecError,
  parseDirectives,
  parseFaultSpec,
  resolveFault,
  stripDirectives,
} from "./faults.js";

describe("fault directives", () => {
  it("reads every directive", () => {
    const text =
      "hi [sim:status=429] [sim:delay_ms=50] [sim:hang] [sim:cut_after=2] [sim:token_latency_ms=5] [sim:no_usage] [sim:tokens=7]";
    expect(parseDirectives(text)).toEqual({
      status: 429,
      delayMs: 50,
      hang: true,
      cutAfter: 2,
      tokenLatencyMs: 5,
      noUsage: true,
      tokens: 7,
    });
  });

  it("ignores unknown directives, missing values and statuses that are not errors", () => {
    expect(parseDirectives("[sim:explode] [sim:delay_ms] [sim:status=200] [sim:status=abc]")).toEqual({});
    expect(parseDirectives("no directives here")).toEqual({});
  });

  it("strips directives from the text", () => {
    expect(stripDirectives("before [sim:status=500] after").split(/\s+/)).toEqual(["before", "after"]);
  });
});

describe("queued faults", () => {
  it("applies a fault to the next count requests only", () => {
    const queue = new FaultQueue();
    queue.add(parseFaultSpec({ status: 503, count: 2 }));
    expect(queue.take("any")).toEqual({ status: 503 });
    expect(queue.take("any")).toEqual({ status: 503 });
    expect(queue.take("any")).toBeUndefined();
  });

  it("skips requests for other models and keeps first-in first-out order", () => {
    const queue = new FaultQueue();
    queue.add(parseFaultSpec({ status: 500, model: "gpt-4o" }));
    queue.add(parseFaultSpec({ delay_ms: 10 }));
    expect(queue.take("other")).toEqual({ delayMs: 10 });
    expect(queue.take("other")).toBeUndefined();
    expect(queue.take("gpt-4o")).toEqual({ status: 500 });
  });

  it("lets message directives override a queued fault", () => {
    const queue = new FaultQueue();
    queue.add(parseFaultSpec({ status: 500, hang: true }));
    expect(resolveFault(queue, "m", "[sim:status=429]")).toEqual({ status: 429, hang: true });
  });

  it("clears all queued faults", () => {
    const queue = new FaultQueue();
    queue.add(parseFaultSpec({ hang: true, count: 5 }));
    expect(queue.clear()).toBe(1);
    expect(queue.take("m")).toBeUndefined();
  });

  it("rejects malformed fault requests", () => {
    for (const body of [null, [], {}, { status: 200 }, { count: 0, hang: true }, { hang: "yes" }, { colour: 1 }]) {
      expect(() => parseFaultSpec(body)).toThrow(FaultSpecError);
    }
  });
});
