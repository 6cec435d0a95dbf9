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

  it("keeps three quarters free of any one holder, yet takes that holder's first request whole", () => {
    const budget = new BodyBudget(100);
    const first = budget.hold("attacker");
    first.grow(40);
    expect(() => budget.hold("attacker").grow(5)).toThrow(expect.objectContaining({ code: "too_many_large_requests" }));
    // A request already holding bytes may grow within the process's capacity.
    first.grow(10);
    expect(() => budget.hold("tenant").grow(40)).not.toThrow();
  });

  it("gives a hold back exactly once, and settles a reservation to what it weighed", () => {
    const budget = new BodyBudget(100);
    const hold = budget.hold("account");
    hold.grow(30);
    hold.settle(30, 10);
    expect(budget.bytesInUse).toBe(10);
    hold.release();
    hold.release();
    hold.grow(20);
    expect(budget.bytesInUse).toBe(0);
  });
});
