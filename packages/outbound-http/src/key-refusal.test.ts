import { describe, expect, it } from "vitest";
import { keyRefusalOf } from "./key-refusal.js";
import { mapVendorError } from "./map-vendor-error.js";

const openAI = (message: string, type: string, code: string) =>
  JSON.stringify({ error: { message, type, param: null, code } });

describe("a vendor refusing the gateway's key", () => {
  it.each([
    ["OpenAI", 401, openAI("Incorrect API key provided: sk-...abcd.", "invalid_request_error", "invalid_api_key")],
    [
      "Anthropic",
      401,
      JSON.stringify({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }),
    ],
    [
      "DeepSeek",
      401,
      openAI(
        "Authentication Fails, Your api key: ****abcd is invalid",
        "authentication_error",
        "invalid_request_error",
      ),
    ],
    [
      "Kimi",
      401,
      JSON.stringify({ error: { message: "Invalid Authentication", type: "invalid_authentication_error" } }),
    ],
    [
      "any vendor's permission refusal",
      403,
      openAI("You are not allowed to use this key.", "permission_error", "permission_denied"),
    ],
    // Gemini's and xAI's bad-key 400s: map-vendor-error.test.ts.
  ])("reads %s's refusal as an invalid key", (_vendor, status, body) => {
    expect(keyRefusalOf(status, body)).toBe("key_invalid");
  });

  it.each([
    [
      "OpenAI",
      429,
      openAI(
        "You exceeded your current quota, please check your plan and billing details.",
        "insufficient_quota",
        "insufficient_quota",
      ),
    ],
    [
      "Anthropic's credit balance",
      400,
      JSON.stringify({
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "Your credit balance is too low to access the Anthropic API.",
        },
      }),
    ],
    [
      "Anthropic's billing_error",
      402,
      JSON.stringify({ type: "error", error: { type: "billing_error", message: "Billing problem." } }),
    ],
    ["DeepSeek", 402, openAI("Insufficient Balance", "unknown_error", "invalid_request_error")],
    [
      "Qwen",
      400,
      JSON.stringify({
        error: {
          code: "Arrearage",
          message: "Access denied, please make sure your account is in good standing.",
          type: "Arrearage",
        },
      }),
    ],
    [
      "Kimi",
      429,
      JSON.stringify({
        error: {
          message: "Your account org-x is suspended due to insufficient balance",
          type: "exceeded_current_quota_error",
        },
      }),
    ],
    [
      "xAI",
      403,
      JSON.stringify({
        code: "Forbidden",
        error: "Your team t has either used all available credits or reached its monthly spending limit.",
      }),
    ],
  ])("reads %s's exhausted balance as quota_exhausted", (_vendor, status, body) => {
    expect(keyRefusalOf(status, body)).toBe("quota_exhausted");
  });

  it.each([
    [429, openAI("Rate limit reached for requests.", "requests", "rate_limit_exceeded")],
    [
      429,
      JSON.stringify({
        error: { code: 429, message: "You exceeded your current quota.", status: "RESOURCE_EXHAUSTED" },
      }),
    ],
    [400, openAI("max_tokens is too large.", "invalid_request_error", "invalid_value")],
    [500, openAI("The server had an error.", "server_error", "")],
    [529, JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })],
  ])("leaves a %i that says nothing about the key to the retry path", (status, body) => {
    expect(keyRefusalOf(status, body)).toBeUndefined();
  });

  it("tells the client only that the provider refused, and keeps the vendor's words, without the key, for operators", () => {
    const error = mapVendorError(
      401,
      openAI(
        "Incorrect API key provided: sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t.",
        "invalid_request_error",
        "invalid_api_key",
      ),
      {},
    );
    expect(error).toMatchObject({ httpStatus: 500, keyRefusal: "key_invalid", vendorStatus: 401 });
    expect(error.message).not.toMatch(/key/i);
    expect(error.vendorMessage).toBe("Incorrect API key provided: [redacted].");
  });

  it("does not retry OpenAI's insufficient_quota as an overload", () => {
    const error = mapVendorError(
      429,
      openAI("You exceeded your current quota.", "insufficient_quota", "insufficient_quota"),
      {},
    );
    expect(error).toMatchObject({ httpStatus: 500, keyRefusal: "quota_exhausted" });
  });
});
