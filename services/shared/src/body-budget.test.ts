import { describe, expect, it } from "vitest";
import { BodyBudget } from "./body-budget.js";

describe("a body budget", () => {
  it("refuses a body past its capacity with a 429, and takes it once bytes are given back", () => {
    const budget = new BodyBudget(10);
    budget.take(6);
    expect(() => budget.take(6)).toThrow(expect.objectContaining({ httpStatus: 429, code: "too_many_large_requests" }));
    budget.giveBack(6);
    expect(() => budget.take(6)).not.toThrow();
  });

  it("always takes a body alone, even one larger than its capacity", () => {
    expect(() => new BodyBudget(10).take(50)).not.toThrow();
  });

  it("never refuses a call without a body, however full it is", () => {
    const budget = new BodyBudget(10);
    budget.take(50);
    expect(() => budget.take(0)).not.toThrow();
  });
});
