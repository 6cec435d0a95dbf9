import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Catalogue } from "./catalogue.js";
import type { CatalogueFile } from "./catalogue-schema.js";

const shippedCatalogue = fileURLToPath(new URL("../../../infra/catalogue/models.yaml", import.meta.url));
const simulatorUrl = "http://127.0.0.1:8090";

describe("the model catalogue", () => {
  it("loads the shipped file with all seven families, every model kind and two groups", () => {
    const catalogue = Catalogue.fromFile(shippedCatalogue, { env: {}, simulatorUrl });
    const models = catalogue.list("premium");
    const owners = new Set(models.map((model) => model.ownedBy));
    expect([...owners].sort()).toEqual(["alibaba", "anthropic", "deepseek", "google", "moonshot", "openai", "xai"]);
    const chatWindows = models
      .filter((model) => model.endpoints.includes("/v1/chat/completions"))
      .map((model) => model.context_window);
    expect(Math.min(...chatWindows)).toBeLessThanOrEqual(65536);
    expect(Math.max(...chatWindows)).toBeGreaterThanOrEqual(2_000_000);
    for (const endpoint of [
      "/v1/images/generations",
      "/v1/audio/transcriptions",
      "/v1/embeddings",
      "/v1/videos/generations",
    ]) {
      expect(models.some((model) => model.endpoints.includes(endpoint))).toBe(true);
    }
    expect(catalogue.groups).toEqual(new Set(["default", "premium"]));
    expect(catalogue.list("default").length).toBeLessThan(catalogue.list("premium").length);
  });

  it("hides models outside the caller's group", () => {
    const catalogue = Catalogue.fromFile(shippedCatalogue, { env: {}, simulatorUrl });
    expect(catalogue.find("gpt-4o", "premium")?.id).toBe("gpt-4o");
    expect(catalogue.find("gpt-4o", "default")).toBeUndefined();
    expect(catalogue.find("no-such-model", "premium")).toBeUndefined();
  });

  it("points channels at the simulator without a key and at the vendor with one", () => {
    const simulated = Catalogue.fromFile(shippedCatalogue, { env: {}, simulatorUrl }).find("deepseek-chat", "default");
    expect(simulated?.channels[0]).toMatchObject({ simulated: true, baseUrl: `${simulatorUrl}/v1` });
    const real = Catalogue.fromFile(shippedCatalogue, {
      env: { DEEPSEEK_API_KEY: "sk-test", OPENAI_API_KEY: "sk-o", OPENAI_BASE_URL: "https://proxy.example/v1/" },
      simulatorUrl,
    });
    expect(real.find("deepseek-chat", "default")?.channels[0]).toMatchObject({
      simulated: false,
      keys: [{ secret: "sk-test" }],
      baseUrl: "https://api.deepseek.com/v1",
    });
    expect(real.find("gpt-4o-mini", "default")?.channels[0]?.baseUrl).toBe("https://proxy.example/v1");
  });

  it("disables channels without a key when no simulator may stand in (production)", () => {
    const production = Catalogue.fromFile(shippedCatalogue, {
      env: { DEEPSEEK_API_KEY: "sk-test" },
      simulatorUrl: undefined,
    });
    expect(production.find("deepseek-chat", "default")?.channels.map((channel) => channel.name)).toEqual([
      "deepseek-main",
    ]);
    expect(production.find("gpt-4o-mini", "default")).toBeUndefined();
    expect(production.list("premium").every((model) => model.vendor === "deepseek")).toBe(true);
    expect(production.disabledChannels).toContain("openai-main");
    expect(production.disabledChannels).not.toContain("deepseek-main");
    expect(production.modelsWithoutChannels).toContain("gpt-4o-mini");
    expect(production.notFoundError("gpt-4o-mini", "default").message).toContain("vendor credentials");
    expect(production.notFoundError("gpt-4o", "default").message).toContain("does not exist");
    expect(production.notFoundError("no-such-model", "default").message).toContain("does not exist");

    const nothing = Catalogue.fromFile(shippedCatalogue, { env: {}, simulatorUrl: undefined });
    expect(nothing.servableModelCount).toBe(0);
    const development = Catalogue.fromFile(shippedCatalogue, { env: {}, simulatorUrl });
    expect(development.disabledChannels).toEqual([]);
    expect(development.modelsWithoutChannels).toEqual([]);
  });

  it("refuses a file whose references do not resolve", () => {
    const broken: CatalogueFile = {
      groups: { default: { description: "d", multiplier_basis_points: 10_000 } },
      vendors: {},
      channels: {},
      models: [
        {
          id: "m",
          vendor: "ghost",
          created: 1,
          context_window: 1,
          max_output_tokens: 1,
          endpoints: ["/v1/chat/completions"],
          capabilities: [],
          price: { input: 0, output: 0 },
          groups: ["vip"],
        },
      ],
    };
    expect(() => Catalogue.fromData(broken, { env: {}, simulatorUrl })).toThrow(
      /unknown vendor ghost[\s\S]*unknown group vip/,
    );
  });

  it("gives every embeddings model its vector size, and refuses one without", () => {
    const catalogue = Catalogue.fromFile(shippedCatalogue, { env: {}, simulatorUrl });
    const embedders = catalogue.list("premium").filter((model) => model.endpoints.includes("/v1/embeddings"));
    expect(embedders.length).toBeGreaterThan(0);
    expect(embedders.every((model) => model.embedding !== undefined)).toBe(true);
    expect(catalogue.find("text-embedding-v3", "premium")?.embedding?.dimensions_range).toBeUndefined();
    const missing: CatalogueFile = {
      groups: { default: { description: "d", multiplier_basis_points: 10_000 } },
      vendors: {},
      channels: {},
      models: [
        {
          id: "e",
          vendor: "ghost",
          created: 1,
          context_window: 1,
          endpoints: ["/v1/embeddings"],
          capabilities: [],
          price: { input: 0, output: 0 },
          groups: ["default"],
        },
      ],
    };
    expect(() => Catalogue.fromData(missing, { env: {}, simulatorUrl })).toThrow(/has no embedding rules/);
  });
});
