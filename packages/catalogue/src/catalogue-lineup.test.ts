import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { Catalogue } from "./catalogue.js";
import { catalogueFileSchema } from "./catalogue-schema.js";
import { pricesAt } from "./token-prices.js";

// The shipped lineup's own rules: what every entry must say, and what the issue asked of each family.

const shippedCatalogue = fileURLToPath(new URL("../../../infra/catalogue/models.yaml", import.meta.url));
const file = catalogueFileSchema.parse(parse(readFileSync(shippedCatalogue, "utf8")));
const catalogue = Catalogue.fromFile(shippedCatalogue, { env: {}, simulatorUrl: "http://127.0.0.1:8090" });
const chatModels = file.models.filter((model) => model.endpoints.includes("/v1/chat/completions"));

// Each vendor's own pages: a price is only as good as where it was read.
const vendorHosts: Record<string, string[]> = {
  openai: ["developers.openai.com"],
  anthropic: ["platform.claude.com"],
  google: ["ai.google.dev"],
  xai: ["docs.x.ai"],
  deepseek: ["api-docs.deepseek.com"],
  alibaba: ["help.aliyun.com", "www.alibabacloud.com"],
  moonshot: ["platform.moonshot.cn", "platform.kimi.com", "platform.kimi.ai"],
};

describe("the shipped lineup", () => {
  it("cites the vendor's own page for every entry", () => {
    for (const model of file.models) {
      expect(model.source, model.id).toBeDefined();
      expect(vendorHosts[model.vendor], model.id).toContain(new URL(model.source!).host);
    }
  });

  it("prices every chat model, with cache reads no dearer than input", () => {
    for (const model of chatModels) {
      // Its own prices or the dataset's, at a short prompt's band.
      const price = pricesAt(catalogue.priceOf(model.id)!, 0);
      const { input, output, cache_read: cacheRead, cache_write: cacheWrite } = price;
      expect(input, model.id).toBeGreaterThan(0);
      expect(output, model.id).toBeGreaterThan(0);
      if (cacheRead !== undefined) expect(cacheRead, model.id).toBeLessThanOrEqual(input);
      if (cacheWrite !== undefined) expect(cacheWrite, model.id).toBeGreaterThan(0);
    }
  });

  it("gives every chat model a context window that holds its output ceiling", () => {
    for (const model of chatModels) {
      expect(model.max_output_tokens, model.id).toBeDefined();
      expect(model.context_window, model.id).toBeGreaterThanOrEqual(model.max_output_tokens!);
    }
  });

  it("has at least 169 chat models, six a family where the vendor offers six", () => {
    expect(chatModels.length).toBeGreaterThanOrEqual(169);
    for (const vendor of Object.keys(vendorHosts)) {
      const count = chatModels.filter((model) => model.vendor === vendor).length;
      // DeepSeek's API serves four chat ids in all.
      expect(count, vendor).toBeGreaterThanOrEqual(vendor === "deepseek" ? 4 : 6);
    }
  });

  it("lists the current models of each family the issue names", () => {
    const current = [
      ...["claude-fable-5-2", "claude-fable-5-1", "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"],
      ...["gpt-6.2-astra", "gpt-6.2-sol", "gpt-6-luna", "gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna"],
      ...["gemini-3.6-flash", "gemini-3.5-flash-lite", "gemini-3.1-pro-preview"],
      ...["grok-4.3", "grok-4.5", "grok-4.6", "deepseek-flash", "deepseek-v4-pro"],
      ...["qwen3.8-max", "qwen3.7-max", "qwen3.7-plus", "qwen3.6-flash", "kimi-k2.6", "kimi-k2.7-code", "kimi-k3"],
    ];
    for (const id of current) expect(catalogue.find(id, "premium")?.id, id).toBe(id);
  });

  it("calls Claude 5 models by ids without a date suffix, each saying how it takes thinking", () => {
    for (const model of file.models.filter((entry) => /^claude-(fable|opus|sonnet|haiku)-5/.test(entry.id))) {
      expect(model.id, model.id).not.toMatch(/-\d{8}$/);
      expect(model.aliases ?? [], model.id).toEqual([]);
      expect(["adaptive_on", "between_tools", "always"], model.id).toContain(model.thinking);
      expect(model.refuses, model.id).toEqual(expect.arrayContaining(["temperature", "top_p", "top_k"]));
    }
  });

  it("resolves aliases to their entry and has dropped retired models", () => {
    expect(catalogue.find("claude-haiku-4-5-20251001", "default")?.id).toBe("claude-haiku-4-5");
    expect(catalogue.find("gpt-4o-mini-2024-07-18", "default")?.id).toBe("gpt-4o-mini");
    expect(catalogue.find("grok-4-0709", "premium")?.id).toBe("grok-4");
    for (const retired of ["gemini-1.5-pro", "claude-opus-4-1"]) {
      expect(catalogue.find(retired, "premium"), retired).toBeUndefined();
    }
  });

  it("refuses an alias that is another entry's id", () => {
    const clash = structuredClone(file);
    clash.models[1]!.aliases = [clash.models[0]!.id];
    expect(() => Catalogue.fromData(clash, { env: {}, simulatorUrl: undefined })).toThrow(/listed twice/);
  });
});
