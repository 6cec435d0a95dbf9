import { describe, expect, it } from "vitest";
import { INT32_MAX, int32From, modelId, storableText } from "./bounded-input.js";

describe("bounded input", () => {
  it("takes integers up to int32's largest value and no further", () => {
    expect(int32From(1).safeParse(INT32_MAX).success).toBe(true);
    expect(int32From(1).safeParse(INT32_MAX + 1).success).toBe(false);
    expect(int32From(1).safeParse(0).success).toBe(false);
    expect(int32From(0).safeParse(1e300).success).toBe(false);
  });

  it("takes model ids of 1 to 256 characters", () => {
    expect(modelId.safeParse("m".repeat(256)).success).toBe(true);
    expect(modelId.safeParse("m".repeat(257)).success).toBe(false);
    expect(modelId.safeParse("").success).toBe(false);
  });

  it("refuses text with NUL characters, keeping string checks chainable", () => {
    expect(storableText.safeParse("plain").success).toBe(true);
    expect(storableText.safeParse("a\u0000b").error?.issues[0]?.message).toMatch(/NUL/);
    expect(storableText.max(3).safeParse("four").success).toBe(false);
  });
});
