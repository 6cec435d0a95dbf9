import { fileURLToPath } from "node:url";
import { Catalogue } from "@gateway/catalogue/catalogue";
import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import { pricedModel, surchargeBasisPoints } from "./surcharges.js";
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

describe("surchargeBasisPoints", () => {
  it("prices OpenAI's priority tier at the model's published multiple, and the standard tiers at none", () => {
    expect(
      surchargeBasisPoints(chat({ openai: { service_tier: "priority" } }), model("gpt-5.5"), "openai-compatible"),
    ).toBe(25_000);
    for (const tier of ["auto", "default", "flex"]) {
      expect(
        surchargeBasisPoints(chat({ openai: { service_tier: tier } }), model("gpt-5.5"), "openai-compatible"),
      ).toBe(10_000);
    }
    expect(surchargeBasisPoints(chat({}), model("gpt-5.5"), "openai-compatible")).toBe(10_000);
  });

  it("refuses a tier with no price for the model (scale, unknown values, priority where unpriced) with a 400", () => {
    for (const [tier, id] of [
      ["scale", "gpt-5.5"],
      ["turbo", "gpt-5.5"],
      [7, "gpt-5.5"],
      ["priority", "gpt-4o-mini"],
    ] as const) {
      expect(
        refusal(() => surchargeBasisPoints(chat({ openai: { service_tier: tier } }), model(id), "openai-compatible")),
      ).toMatchObject({ httpStatus: 400, param: "service_tier", code: "unsupported_value" });
    }
  });

  it("prices Claude's fast mode and US-only inference, together multiplied", () => {
    const opus = model("claude-opus-4-8");
    expect(surchargeBasisPoints(chat({ claude: { speed: "fast" } }), opus, "anthropic")).toBe(20_000);
    expect(surchargeBasisPoints(chat({ claude: { inference_geo: "us" } }), opus, "anthropic")).toBe(11_000);
    expect(surchargeBasisPoints(chat({ claude: { speed: "fast", inference_geo: "us" } }), opus, "anthropic")).toBe(
      22_000,
    );
    const standard = { speed: "standard", inference_geo: "global", service_tier: "auto" };
    expect(surchargeBasisPoints(chat({ claude: standard }), opus, "anthropic")).toBe(10_000);
  });

  it("refuses fast mode and US-only inference where the model has no such price", () => {
    expect(
      refusal(() => surchargeBasisPoints(chat({ claude: { speed: "fast" } }), model("claude-opus-4-7"), "anthropic")),
    ).toMatchObject({ httpStatus: 400, param: "speed" });
    expect(
      refusal(() =>
        surchargeBasisPoints(chat({ claude: { inference_geo: "us" } }), model("claude-sonnet-4-5"), "anthropic"),
      ),
    ).toMatchObject({ httpStatus: 400, param: "inference_geo" });
  });

  it("ignores options the vendor's adapter never sends (service_tier to Claude, speed to OpenAI)", () => {
    const toClaude = chat({ openai: { service_tier: "priority" } });
    expect(surchargeBasisPoints(toClaude, model("claude-sonnet-4-5"), "anthropic")).toBe(10_000);
    const toOpenAI = chat({ claude: { speed: "fast", inference_geo: "us" } });
    expect(surchargeBasisPoints(toOpenAI, model("gpt-4o-mini"), "openai-compatible")).toBe(10_000);
  });
});

describe("pricedModel", () => {
  it("raises every token price, rounded up, so the reservation covers the surcharged call", () => {
    const opus = model("claude-opus-4-8");
    const fast = pricedModel(opus, 20_000);
    expect(fast.price).toEqual({
      input: opus.price.input * 2,
      output: opus.price.output * 2,
      cache_read: opus.price.cache_read! * 2,
      cache_write: opus.price.cache_write! * 2,
    });
    expect(pricedModel(opus, 11_000).price.input).toBe(Math.ceil(opus.price.input * 1.1));
    const request = chat({ claude: { speed: "fast" } });
    expect(worstCase(request, fast, 10_000).costMicros).toBe(2n * worstCase(request, opus, 10_000).costMicros);
  });
});
