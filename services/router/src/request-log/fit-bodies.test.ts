import { describe, expect, it } from "vitest";
import { fitBodies } from "./fit-bodies.js";

describe("fitBodies", () => {
  it("keeps both bodies when together they fit", () => {
    expect(fitBodies("a".repeat(60), "b".repeat(40), 100)).toEqual({
      request: "a".repeat(60),
      response: "b".repeat(40),
      truncated: false,
    });
  });

  it("gives a long answer what a short request leaves", () => {
    const fitted = fitBodies("a".repeat(10), "b".repeat(500), 100);
    expect(fitted).toEqual({ request: "a".repeat(10), response: "b".repeat(90), truncated: true });
  });

  it("gives a long request what a short answer leaves", () => {
    const fitted = fitBodies("a".repeat(500), "b".repeat(10), 100);
    expect(fitted).toEqual({ request: "a".repeat(90), response: "b".repeat(10), truncated: true });
  });

  it("splits the cap when both are long, counting bytes", () => {
    const fitted = fitBodies("é".repeat(500), "b".repeat(500), 100);
    expect(fitted.request).toBe("é".repeat(25));
    expect(fitted.response).toBe("b".repeat(50));
    expect(fitted.truncated).toBe(true);
  });
});
