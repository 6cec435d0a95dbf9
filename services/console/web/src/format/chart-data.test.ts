import { describe, expect, it } from "vitest";
import { dayChartData, modelChartData } from "./chart-data.js";

describe("chart rows", () => {
  it("plots days by month-day with cost in yuan and tokens summed", () => {
    expect(
      dayChartData([{ day: "2026-11-24", requests: 3, promptTokens: 10, completionTokens: 5, costMicros: 1_500_000 }]),
    ).toEqual([{ day: "11-24", requests: 3, tokens: 15, cost: 1.5 }]);
  });

  it("plots models the same way", () => {
    expect(
      modelChartData([{ model: "gpt-4o-mini", requests: 1, promptTokens: 7, completionTokens: 0, costMicros: 42 }]),
    ).toEqual([{ model: "gpt-4o-mini", requests: 1, tokens: 7, cost: 0.000042 }]);
  });
});
