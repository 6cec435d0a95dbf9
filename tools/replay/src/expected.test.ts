import { describe, expect, it } from "vitest";
import { anthropicUsage, geminiUsage, openAIUsage, sseData, vendorRetryAfterMs } from "./expected.js";

describe("the usage rule, read from each vendor's usage", () => {
  it("adds reasoning an OpenAI-compatible vendor reports outside completion_tokens (xAI's total gives it away)", () => {
    const usage = openAIUsage({
      prompt_tokens: 12,
      completion_tokens: 1,
      total_tokens: 241,
      prompt_tokens_details: { cached_tokens: 2 },
      completion_tokens_details: { reasoning_tokens: 228 },
    });
    expect(usage).toEqual({ prompt: 12, completion: 229, total: 241, cacheRead: 2, cacheWrite: 0, reasoning: 228 });
  });

  it("keeps reasoning already within completion_tokens, and reads DeepSeek's and Kimi's cache counts", () => {
    const deepseek = openAIUsage({
      prompt_tokens: 339,
      completion_tokens: 92,
      total_tokens: 431,
      prompt_cache_hit_tokens: 320,
      completion_tokens_details: { reasoning_tokens: 48 },
    });
    expect(deepseek).toMatchObject({ prompt: 339, completion: 92, total: 431, cacheRead: 320, reasoning: 48 });
    expect(
      openAIUsage({ prompt_tokens: 20, completion_tokens: 30, total_tokens: 50, cached_tokens: 10 }),
    ).toMatchObject({
      cacheRead: 10,
    });
  });

  it("puts Anthropic's cache reads and writes within the prompt", () => {
    const usage = anthropicUsage({
      input_tokens: 3,
      cache_read_input_tokens: 1111,
      cache_creation_input_tokens: 418,
      output_tokens: 33,
    });
    expect(usage).toEqual({
      prompt: 1532,
      completion: 33,
      total: 1565,
      cacheRead: 1111,
      cacheWrite: 418,
      reasoning: 0,
    });
  });

  it("puts Gemini's thoughts within the completion", () => {
    const usage = geminiUsage({ promptTokenCount: 29, candidatesTokenCount: 15, thoughtsTokenCount: 1801 });
    expect(usage).toEqual({ prompt: 29, completion: 1816, total: 1845, cacheRead: 0, cacheWrite: 0, reasoning: 1801 });
  });
});

describe("vendor wire details", () => {
  it("takes the wait from retry-after-ms, retry-after, or Google's RetryInfo", () => {
    expect(vendorRetryAfterMs({ "retry-after-ms": "1500", "retry-after": "9" }, "")).toBe(1500);
    expect(vendorRetryAfterMs({ "retry-after": "26" }, "")).toBe(26_000);
    const google = {
      error: { details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "34.4s" }] },
    };
    expect(vendorRetryAfterMs({}, JSON.stringify(google))).toBe(34_400);
    expect(vendorRetryAfterMs({}, "{}")).toBeUndefined();
  });

  it("reads SSE data in LF and CRLF framing, joining multi-line data", () => {
    expect(sseData('event: a\ndata: {"x":1}\n\ndata: [DONE]\n\n')).toEqual(['{"x":1}', "[DONE]"]);
    expect(sseData('data: {"y":\r\ndata: 2}\r\n\r\n')).toEqual(['{"y":\n2}']);
  });
});
