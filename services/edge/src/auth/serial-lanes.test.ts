import { describe, expect, it } from "vitest";
import { SerialLanes } from "./serial-lanes.js";

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("SerialLanes", () => {
  it("runs one task at a time per lane, in order, and lanes side by side", async () => {
    const lanes = new SerialLanes();
    const events: string[] = [];
    let release!: () => void;
    const first = lanes.run("a", async () => {
      events.push("a1 start");
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      events.push("a1 end");
      return 1;
    });
    const second = lanes.run("a", async () => {
      events.push("a2");
      return 2;
    });
    const other = lanes.run("b", async () => {
      events.push("b1");
      return 3;
    });
    await settle();
    expect(events).toEqual(["a1 start", "b1"]);
    release();
    expect(await Promise.all([first, second, other])).toEqual([1, 2, 3]);
    expect(events).toEqual(["a1 start", "b1", "a1 end", "a2"]);
  });

  it("goes on after a failed task and forgets lanes without work", async () => {
    const lanes = new SerialLanes();
    const failed = lanes.run("a", () => Promise.reject(new Error("lookup failed")));
    const next = lanes.run("a", async () => "next");
    await expect(failed).rejects.toThrow("lookup failed");
    expect(await next).toBe("next");
    await settle();
    expect(lanes.size).toBe(0);
  });
});
