import { describe, expect, it } from "vitest";
import { apiPath } from "./client.js";

describe("apiPath", () => {
  it("adds only the parameters that have a value", () => {
    expect(apiPath("/api/usage", { model: "gpt-4o", keyId: undefined, status: "", limit: 50 })).toBe(
      "/api/usage?model=gpt-4o&limit=50",
    );
  });

  it("leaves a path without parameters alone", () => {
    expect(apiPath("/api/topups", { cursor: "" })).toBe("/api/topups");
  });
});
