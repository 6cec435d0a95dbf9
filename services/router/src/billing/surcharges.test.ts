import { fileURLToPath } from "node:url";
import type { RequestFacts } from "@gateway/billing";
import { Catalogue, priceAt, pricesAt } from "@gateway/catalogue";
import type { ChatRequest, Usage } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { pricedAsServed, pricedModel, requestedSurcharges } from "./surcharges.js";
import { worstCase } from "./worst-case-cost.js";

const catalogue = Catalogue.fromFile(
  fileURLToPath(new URL("../../../../infra/catalogue/models.yaml", import.meta.url)),
  { env: {}, simulatorUrl: "http://127.0.0.1:8090" },
);
const model = (id: string) => catalogue.find(id, "premium")!;

const chat = (fields: { openai?: Record<string, unknown>; claude?: Record<string, unknown> }): ChatRequest =>
  ({
    model: "m",
    messages: [{ role: "user", text: "hi", parts: [], toolCalls: [] }],
    tools: [],
    maxTokens: 100,
    extraJson: fields.openai ? JSON.stringify(fields.openai) : "",
    anthropicExtraJson: fields.claude ? JSON.stringify(fields.claude) : "",
  }) as unknown as ChatRequest;

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("not refused");
};

describe("requestedSurcharges", () => {
  it("asks for OpenAI's priority tier where the model prices it, and for nothing on the standard tiers", () => {
    const gpt = model("gpt-5.5");
    expect(requestedSurcharges(chat({ openai: { service_tier: "priority" } }), gpt, "openai-compatible")).toEqual([
      "priority",
    ]);
    for (const tier of ["auto", "default", "flex"]) {
      expect(requestedSurcharges(chat({ openai: { service_tier: tier } }), gpt, "openai-compatible")).toEqual([]);
    }
    expect(requestedSurcharges(chat({}), gpt, "openai-compatible")).toEqual([]);
  });

  it("refuses a tier with no price for the model (scale, unknown values, priority where unpriced) with a 400", () => {
    for (const [tier, id] of [
      ["scale", "gpt-5.5"],
      ["turbo", "gpt-5.5"],
      [7, "gpt-5.5"],
      ["priority", "gpt-4o-mini"],
    ] as const) {
      expect(
        refusal(() => requestedSurcharges(chat({ openai: { service_tier: tier } }), model(id), "openai-compatible")),
      ).toMatchObject({ httpStatus: 400, param: "service_tier", code: "unsupported_value" });
    }
  });

  it("asks for Claude's fast mode and US-only inference, and nothing for the standard values", () => {
    const opus = model("claude-opus-4-8");
    const both = chat({ claude: { speed: "fast", inference_geo: "us" } });
    expect(requestedSurcharges(both, opus, "anthropic")).toEqual(["fast", "us_inference"]);
    const standard = { speed: "standard", inference_geo: "global", service_tier: "auto" };
    expect(requestedSurcharges(chat({ claude: standard }), opus, "anthropic")).toEqual([]);
  });

  it("refuses fast mode and US-only inference where the model has no such price", () => {
    expect(
      refusal(() => requestedSurcharges(chat({ claude: { speed: "fast" } }), model("claude-opus-4-7"), "anthropic")),
    ).toMatchObject({ httpStatus: 400, param: "speed" });
    expect(
      refusal(() =>
        requestedSurcharges(chat({ claude: { inference_geo: "us" } }), model("claude-haiku-4-5"), "anthropic"),
      ),
    ).toMatchObject({ httpStatus: 400, param: "inference_geo" });
  });

  it("ignores options the vendor's adapter never sends (service_tier to Claude, speed to OpenAI)", () => {
    const toClaude = chat({ openai: { service_tier: "priority" } });
    expect(requestedSurcharges(toClaude, model("claude-haiku-4-5"), "anthropic")).toEqual([]);
    const toOpenAI = chat({ claude: { speed: "fast", inference_geo: "us" } });
    expect(requestedSurcharges(toOpenAI, model("gpt-4o-mini"), "openai-compatible")).toEqual([]);
  });
});

describe("pricedModel", () => {
  it("raises every token price by each surcharge, rounded up, so the reservation covers the call", () => {
    const opus = model("claude-opus-4-8");
    const standard = pricesAt(opus.price, 0);
    const fast = pricedModel(opus, ["fast"]);
    expect(fast.price).toEqual({
      input: standard.input * 2,
      output: standard.output * 2,
      cache_read: standard.cache_read! * 2,
      cache_write: standard.cache_write! * 2,
    });
    expect(pricedModel(opus, ["fast", "us_inference"]).price.output).toBe((standard.output * 22) / 10);
    // A tiered price is raised in every band.
    const gpt = model("gpt-5.5");
    const priority = pricedModel(gpt, ["priority"]);
    for (const promptTokens of [1_000, 300_000]) {
      expect(priceAt(priority.price.input, promptTokens)).toBe((priceAt(gpt.price.input, promptTokens) * 5) / 2);
    }
    const request = chat({ claude: { speed: "fast" } });
    expect(worstCase(request, fast, 10_000).costMicros).toBe(2n * worstCase(request, opus, 10_000).costMicros);
  });
});

describe("pricedAsServed", () => {
  const facts = (id: string, options: ("priority" | "fast" | "us_inference")[]): RequestFacts => {
    const standard = model(id);
    return {
      model: pricedModel(standard, options),
      ...(options.length > 0 && { surcharged: { standard, options } }),
    } as RequestFacts;
  };
  const usage = (served: Partial<Usage>): Usage => ({
    promptTokens: 1,
    completionTokens: 1,
    totalTokens: 2,
    ...served,
  });

  it("bills what the vendor says served: standard when priority or fast mode fell back", () => {
    const gpt = model("gpt-5.5");
    expect(pricedAsServed(facts("gpt-5.5", ["priority"]), usage({ serviceTier: "default" })).model.price).toEqual(
      gpt.price,
    );
    const opus = model("claude-opus-4-8");
    const fellBack = pricedAsServed(facts("claude-opus-4-8", ["fast"]), usage({ speed: "standard" }));
    expect(fellBack.model.price).toEqual(opus.price);
  });

  it("bills what was asked where the answer does not say, and a priced tier that served unasked", () => {
    const asked = facts("gpt-5.5", ["priority"]);
    expect(pricedAsServed(asked, usage({}))).toBe(asked);
    expect(pricedAsServed(asked, undefined)).toBe(asked);
    const unasked = pricedAsServed(facts("gpt-5.5", []), usage({ serviceTier: "priority" }));
    expect(unasked.model.price).toEqual(pricedModel(model("gpt-5.5"), ["priority"]).price);
  });
});
