import { describe, expect, it } from "vitest";
import { Catalogue } from "./catalogue.js";
import { chatEntry } from "./catalogue-entries.fixtures.js";
import type { CatalogueFile, ModelEntry, VendorEntry } from "./catalogue-schema.js";

const sources = { env: {}, simulatorUrl: "http://127.0.0.1:8090" };

const model = chatEntry;

const catalogueOf = (vendor: Partial<VendorEntry>, ...models: ModelEntry[]): CatalogueFile => ({
  groups: { default: { description: "d", multiplier_basis_points: 10_000 } },
  vendors: {
    v: {
      owned_by: "openai",
      protocol: "openai-compatible",
      profile: "openai",
      base_url: "https://vendor.example/v1",
      simulator_path: "",
      api_key_env: "V_KEY",
      base_url_env: "V_URL",
      ...vendor,
    },
  },
  channels: { main: { vendor: "v", priority: 0, weight: 1 } },
  models,
});

const both = ["/v1/chat/completions", "/v1/responses"] as ("/v1/chat/completions" | "/v1/responses")[];

describe("the endpoints a model has at its vendor", () => {
  it("are its vendor's for chat models, and none for a vendor that names none", () => {
    const openai = Catalogue.fromData(catalogueOf({ chat_model_endpoints: both }, model("chat")), sources);
    expect(openai.find("chat", "default")?.vendorEndpoints).toEqual(both);
    const other = Catalogue.fromData(catalogueOf({}, model("chat")), sources);
    expect(other.find("chat", "default")?.vendorEndpoints).toEqual([]);
  });

  it("are the model's own where it names them: a model offered only on the Responses API", () => {
    const codex = model("codex", { endpoints: ["/v1/responses"], vendor_endpoints: ["/v1/responses"] });
    const catalogue = Catalogue.fromData(catalogueOf({ chat_model_endpoints: both }, codex), sources);
    expect(catalogue.find("codex", "default")?.vendorEndpoints).toEqual(["/v1/responses"]);
  });

  it("refuse a model served on chat that its vendor offers only on the Responses API", () => {
    const codex = model("codex", { vendor_endpoints: ["/v1/responses"] });
    expect(() => Catalogue.fromData(catalogueOf({}, codex), sources)).toThrow(
      "models.codex: serves /v1/chat/completions but its vendor offers it only on /v1/responses",
    );
  });

  it("refuse /v1/responses among the endpoints of a model its vendor does not serve there", () => {
    const codex = model("codex", { endpoints: ["/v1/responses"], vendor_endpoints: ["/v1/chat/completions"] });
    expect(() => Catalogue.fromData(catalogueOf({}, codex), sources)).toThrow(
      "models.codex: lists /v1/responses, which only models on their vendor's Responses API list",
    );
  });
});
