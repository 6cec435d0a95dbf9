import Anthropic from "@anthropic-ai/sdk";
import { priceUsage } from "@gateway/billing";
import {
  clearSimulatorRequests,
  simulatorRequests,
  startTestStack,
  type TestStack,
  type UsageRecordRow,
  usageRecordOf,
} from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { multiplierOf } from "./media-fixtures.js";
import { shippedPrice } from "./shipped-catalogue.js";

let stack: TestStack;
let openai: OpenAI;
let anthropic: Anthropic;
let multiplier: number;
const usageRecord = (requestId: string) => usageRecordOf(stack.databaseUrl, requestId);

beforeAll(async () => {
  stack = await startTestStack();
  const account = await stack.createAccount({ group: "premium" });
  openai = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: stack.baseUrl.replace(/\/v1$/, ""), apiKey: account.api_key, maxRetries: 0 });
  multiplier = await multiplierOf(stack.databaseUrl, "premium");
});
afterAll(async () => {
  await stack?.teardown();
});

/** What the ledger should charge for the record's tokens at the model's prices times `times`. */
function chargeAt(record: UsageRecordRow, model: string, times: number): bigint {
  const price = shippedPrice(model, "premium");
  const surcharged = (micros: number | undefined) => Math.ceil((micros ?? price.input) * times);
  return priceUsage({
    promptTokens: record.prompt_tokens,
    completionTokens: record.completion_tokens,
    cachedTokens: record.cached_tokens,
    cacheCreationTokens: record.cache_creation_tokens,
    inputPriceMicros: surcharged(price.input),
    outputPriceMicros: surcharged(price.output),
    cacheReadPriceMicros: surcharged(price.cache_read),
    cacheWritePriceMicros: surcharged(price.cache_write),
    multiplierBasisPoints: multiplier,
  });
}

/** `send` is called only once the simulator's log is clear, so a request it lets through is seen. */
async function refusedBeforeVendor(send: () => Promise<unknown>, param: string) {
  await clearSimulatorRequests(stack.simulatorUrl);
  const error = await send().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  // OpenAI's errors name the parameter; Anthropic's shape has no field for it, its message does.
  expect(error).toMatchObject({ status: 400 });
  const { param: named, message } = error as { param?: string; message: string };
  expect(named ?? message).toContain(param);
  expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
}

describe("surcharged vendor options", () => {
  it("bills OpenAI's priority tier at the priority price (2.5x on gpt-5.5), and sends the tier on", async () => {
    await clearSimulatorRequests(stack.simulatorUrl);
    const completion = await openai.chat.completions.create({
      model: "gpt-5.5",
      messages: [{ role: "user", content: "priority marker" }],
      max_completion_tokens: 50,
      service_tier: "priority",
    });
    const [upstream] = await simulatorRequests(stack.simulatorUrl);
    expect(upstream?.body).toMatchObject({ service_tier: "priority" });
    const record = await usageRecord(completion._request_id!);
    expect(record.prompt_tokens).toBeGreaterThan(0);
    expect(BigInt(record.cost_micros)).toBe(chargeAt(record, "gpt-5.5", 2.5));
  });

  it("bills what the vendor says served: a priority stream at priority, a call it served at default at standard", async () => {
    const stream = await openai.chat.completions
      .create({
        model: "gpt-5.5",
        messages: [{ role: "user", content: "priority stream marker" }],
        max_completion_tokens: 50,
        service_tier: "priority",
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    for await (const _chunk of stream.data) {
      // Drained, so the stream ends and is billed.
    }
    const streamed = await usageRecord(stream.response.headers.get("x-request-id")!);
    expect(BigInt(streamed.cost_micros)).toBe(chargeAt(streamed, "gpt-5.5", 2.5));
    const fellBack = await openai.chat.completions.create({
      model: "gpt-5.5",
      messages: [{ role: "user", content: "no priority capacity [sim:standard_tier]" }],
      max_completion_tokens: 50,
      service_tier: "priority",
    });
    const record = await usageRecord(fellBack._request_id!);
    expect(BigInt(record.cost_micros)).toBe(chargeAt(record, "gpt-5.5", 1));
  });

  it("refuses a tier with no price (scale; priority on a model without one) with 400 before any vendor call", async () => {
    for (const [model, tier] of [
      ["gpt-5.5", "scale"],
      ["gpt-4o-mini", "priority"],
    ] as const) {
      const messages = [{ role: "user" as const, content: `${tier} marker` }];
      await refusedBeforeVendor(
        () => openai.chat.completions.create({ model, messages, service_tier: tier }),
        "service_tier",
      );
    }
  });

  it("bills Claude's fast mode at the fast price (2x on Opus 4.8) unless it fell back, and refuses it where Claude has none", async () => {
    const { data: message, response } = await anthropic.messages
      .create({
        model: "claude-opus-4-8",
        max_tokens: 50,
        messages: [{ role: "user", content: "fast marker" }],
        speed: "fast",
      })
      .withResponse();
    expect(message.type).toBe("message");
    const record = await usageRecord(response.headers.get("request-id")!);
    expect(BigInt(record.cost_micros)).toBe(chargeAt(record, "claude-opus-4-8", 2));
    const { response: fellBack } = await anthropic.messages
      .create({
        model: "claude-opus-4-8",
        max_tokens: 50,
        messages: [{ role: "user", content: "fast mode fell back [sim:standard_tier]" }],
        speed: "fast",
      })
      .withResponse();
    const standard = await usageRecord(fellBack.headers.get("request-id")!);
    expect(BigInt(standard.cost_micros)).toBe(chargeAt(standard, "claude-opus-4-8", 1));
    await refusedBeforeVendor(
      () =>
        anthropic.messages.create({
          model: "claude-opus-4-7",
          max_tokens: 50,
          messages: [{ role: "user", content: "unpriced fast marker" }],
          speed: "fast",
        }),
      "speed",
    );
  });
});
