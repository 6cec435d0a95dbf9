import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ConcurrencyLimit } from "./concurrency-limit.js";

describe("a concurrency limit", () => {
  it("runs at most its limit at once, the rest in arrival order, and goes on after failures", async () => {
    const limit = new ConcurrencyLimit(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const task = (index: number) => async () => {
      started.push(index);
      running += 1;
      most = Math.max(most, running);
      await sleep(5);
      running -= 1;
      if (index === 1) throw new Error("failed");
      return index;
    };
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map((index) => limit.run(task(index))));
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(results.map((result) => result.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
  });
});
