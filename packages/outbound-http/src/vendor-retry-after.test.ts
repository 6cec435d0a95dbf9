import { describe, expect, it } from "vitest";
import { mapVendorError } from "./map-vendor-error.js";
import { vendorRetryAfterMs } from "./vendor-retry-after.js";

const now = Date.parse("2026-11-24T10:00:00Z");

// Gemini's 429 as Google words it: the quota that ran out, a help link, and the wait.
const geminiQuotaBody = (retryDelay: string) => ({
  error: {
    code: 429,
    message: "You exceeded your current quota, please check your plan and billing details.",
    status: "RESOURCE_EXHAUSTED",
    details: [
      {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        violations: [{ quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests" }],
      },
      { "@type": "type.googleapis.com/google.rpc.Help", links: [{ description: "Learn more" }] },
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay },
    ],
  },
});

describe("the wait a vendor asks for", () => {
  it.each([
    ["26s", 26_000],
    ["26.5s", 26_500],
    ["3.957525076s", 3_958],
  ])("reads Gemini's RetryInfo retryDelay %s", (retryDelay, expected) => {
    expect(vendorRetryAfterMs({}, geminiQuotaBody(retryDelay), now)).toBe(expected);
  });

  it("reads retry-after-ms before retry-after, and retry-after as seconds or an HTTP date", () => {
    expect(vendorRetryAfterMs({ "retry-after-ms": "1500", "retry-after": "2" }, undefined, now)).toBe(1_500);
    expect(vendorRetryAfterMs({ "retry-after": "7" }, undefined, now)).toBe(7_000);
    expect(vendorRetryAfterMs({ "retry-after": "Tue, 24 Nov 2026 10:00:12 GMT" }, undefined, now)).toBe(12_000);
  });

  it("falls back to the reset of the Anthropic limit that is used up", () => {
    const headers = {
      "anthropic-ratelimit-requests-remaining": "12",
      "anthropic-ratelimit-requests-reset": "2026-11-24T10:00:40Z",
      "anthropic-ratelimit-input-tokens-remaining": "0",
      "anthropic-ratelimit-input-tokens-reset": "2026-11-24T10:00:09Z",
    };
    expect(vendorRetryAfterMs(headers, undefined, now)).toBe(9_000);
  });

  it("answers a second when the vendor says nothing, and a minute at the most", () => {
    expect(vendorRetryAfterMs({}, { error: { code: 503, status: "UNAVAILABLE" } }, now)).toBe(1_000);
    expect(vendorRetryAfterMs({ "retry-after": "soon" }, undefined, now)).toBe(1_000);
    expect(vendorRetryAfterMs({}, geminiQuotaBody("86400s"), now)).toBe(60_000);
  });

  it("is what the retryable 503 for a vendor's 429 carries", () => {
    expect(mapVendorError(429, JSON.stringify(geminiQuotaBody("26s")), {}).retryAfterMs).toBe(26_000);
  });
});
