import { describe, expect, it } from "vitest";
import { MicroBatcher } from "./micro-batcher.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("MicroBatcher", () => {
  it("waits briefly to group items that arrive together", async () => {
    const batches: number[][] = [];
    const batcher = new MicroBatcher<number>(
      async (batch) => {
        batches.push(batch);
      },
      { maxSize: 100, maxWaitMs: 20, concurrency: 1 },
    );
    for (const item of [1, 2, 3]) batcher.add(item);
    expect(batches).toEqual([]);
    await pause(50);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it("processes a full batch at once and one batch at a time", async () => {
    const batches: number[][] = [];
    let active = 0;
    let mostActive = 0;
    const batcher = new MicroBatcher<number>(
      async (batch) => {
        active += 1;
        mostActive = Math.max(mostActive, active);
        await pause(10);
        batches.push(batch);
        active -= 1;
      },
      { maxSize: 2, maxWaitMs: 10_000, concurrency: 1 },
    );
    for (const item of [1, 2, 3, 4, 5]) batcher.add(item);
    await batcher.drain();
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
    expect(mostActive).toBe(1);
  });

  it("gathers and starts the next batch while earlier ones are still processed, up to its concurrency", async () => {
    const started: number[][] = [];
    const finishes: Array<() => void> = [];
    const batcher = new MicroBatcher<number>(
      (batch) => {
        started.push(batch);
        return new Promise<void>((resolve) => finishes.push(resolve));
      },
      { maxSize: 2, maxWaitMs: 10_000, concurrency: 2 },
    );
    for (const item of [1, 2, 3, 4, 5, 6, 7]) batcher.add(item);
    expect(started).toEqual([
      [1, 2],
      [3, 4],
    ]);
    finishes.shift()?.();
    await pause(0);
    // A free slot takes what waited in full batches, the remainder included.
    expect(started).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    const drained = batcher.drain();
    while (finishes.length > 0) {
      finishes.shift()?.();
      await pause(0);
    }
    await drained;
    expect(started.flat()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("drains whatever is pending", async () => {
    const seen: number[] = [];
    const batcher = new MicroBatcher<number>(
      async (batch) => {
        seen.push(...batch);
      },
      { maxSize: 10, maxWaitMs: 10_000, concurrency: 1 },
    );
    batcher.add(7);
    await batcher.drain();
    expect(seen).toEqual([7]);
  });
});
