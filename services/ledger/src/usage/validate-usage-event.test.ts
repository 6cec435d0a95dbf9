import { UsageEvent } from "@gateway/proto/events/v1/events";
import { describe, expect, it } from "vitest";
import { validateUsageEvent } from "./validate-usage-event.js";

const fine = UsageEvent.fromPartial({
  requestId: "req-1",
  accountId: "0b6f3c1e-8d2a-4c41-9f3e-2a7d5b9c1e40",
  keyId: "5d2e9a7c-1b3f-4e8d-a6c2-7f9b0d4e1a35",
  promptTokens: 10,
  completionTokens: 20,
  totalTokens: 30,
  inputPriceMicros: 5_000_000,
});

describe("validateUsageEvent", () => {
  it("accepts a well-formed event", () => {
    expect(validateUsageEvent(fine)).toBeUndefined();
  });

  it.each(["cacheReadPriceMicros", "cacheWritePriceMicros", "imageInputPriceMicros", "unitPriceMicros"] as const)(
    "refuses a %s out of range, which would overflow the cost column",
    (field) => {
      expect(validateUsageEvent({ ...fine, [field]: 2 ** 60 })).toMatch(/price out of range/);
      expect(validateUsageEvent({ ...fine, [field]: -1 })).toMatch(/price out of range/);
    },
  );

  it.each(["cachedTokens", "cacheCreationTokens", "reasoningTokens", "imageInputTokens"] as const)(
    "refuses a negative %s",
    (field) => {
      expect(validateUsageEvent({ ...fine, [field]: -5 })).toBe("token counts are negative");
    },
  );
});
