import { expect, it } from "vitest";
import { growthTrend, residentKilobytes } from "./resource-trend.js";

it("sees no growth in samples that wander around a level, spikes included", () => {
  const samples = [100, 104, 98, 300, 101, 99, 103, 97, 102, 100, 250, 101];
  expect(growthTrend(samples, 1.2, 0).growing).toBe(false);
});

it("sees growth when the last third sits well above the first", () => {
  const samples = Array.from({ length: 30 }, (_, index) => 100 + index * 5);
  expect(growthTrend(samples, 1.2, 10)).toMatchObject({ first: 122.5, last: 222.5, growing: true });
});

it("allows growth within the ratio and the slack", () => {
  expect(growthTrend([100, 100, 100, 130, 130, 130], 1.2, 10).growing).toBe(false);
  expect(growthTrend([100, 100, 100, 131, 131, 131], 1.2, 10).growing).toBe(true);
});

it("refuses to judge fewer than three samples", () => {
  expect(() => growthTrend([1, 2], 1.5, 0)).toThrow(/at least 3/);
});

it("reads its own process's resident set and nothing for a process that is gone", () => {
  expect(residentKilobytes(process.pid)).toBeGreaterThan(1_000);
  expect(residentKilobytes(2 ** 22 + 1)).toBeUndefined();
});
