import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Catalogue } from "./catalogue.js";
import { chatEntry } from "./catalogue-entries.fixtures.js";
import type { CatalogueFile, ModelEntry, Retirement } from "./catalogue-schema.js";

const shippedCatalogue = fileURLToPath(new URL("../../../infra/catalogue/models.yaml", import.meta.url));
const sources = { env: {}, simulatorUrl: "http://127.0.0.1:8090" };

const chat = chatEntry;

const catalogueOf = (...models: ModelEntry[]): CatalogueFile => ({
  groups: { default: { description: "d", multiplier_basis_points: 10_000 } },
  vendors: {
    v: {
      owned_by: "deepseek",
      protocol: "openai-compatible",
      profile: "deepseek",
      base_url: "https://vendor.example/v1",
      simulator_path: "",
      api_key_env: "V_KEY",
      base_url_env: "V_URL",
    },
  },
  channels: { main: { vendor: "v", priority: 0, weight: 1 } },
  models,
});

const retired = (retirement: Partial<Retirement> = {}): Partial<ModelEntry> => ({
  retired: { on: "2026-07-24", successor: "new", serve: true, ...retirement },
});

describe("retired models", () => {
  it("are answered by their successor when served, and left out of the list", () => {
    const catalogue = Catalogue.fromData(
      catalogueOf(chat("new", { price: { input: 5, output: 7 } }), chat("old", retired())),
      sources,
    );
    const served = catalogue.find("old", "default");
    expect(served).toMatchObject({ id: "new", price: { input: 5, output: 7 }, servedFor: { id: "old" } });
    expect(catalogue.find("new", "default")?.servedFor).toBeUndefined();
    expect(catalogue.list("default").map((model) => model.id)).toEqual(["new"]);
    expect(catalogue.all().map((model) => model.id)).toEqual(["new"]);
  });

  it("are refused with a 404 naming the successor when not served", () => {
    const catalogue = Catalogue.fromData(catalogueOf(chat("new"), chat("old", retired({ serve: false }))), sources);
    expect(catalogue.find("old", "default")).toBeUndefined();
    const error = catalogue.notFoundError("old", "default");
    expect(error).toMatchObject({ httpStatus: 404, code: "model_not_found" });
    expect(error.message).toBe("The model `old` was retired on 2026-07-24; use `new` instead.");
  });

  it("must name a successor that exists, is not retired and serves their endpoints", () => {
    const refused = (models: ModelEntry[]) => () => Catalogue.fromData(catalogueOf(...models), sources);
    expect(refused([chat("old", retired({ successor: "ghost" }))])).toThrow(/old\.retired: unknown successor ghost/);
    expect(
      refused([
        chat("newer"),
        chat("new", retired({ successor: "newer" })),
        chat("old", retired({ successor: "new" })),
      ]),
    ).toThrow(/old\.retired: successor new is retired itself/);
    expect(
      refused([chat("new"), chat("old", { ...retired(), endpoints: ["/v1/chat/completions", "/v1/completions"] })]),
    ).toThrow(/old\.retired: successor new does not serve \/v1\/completions/);
  });

  it("may name a chat model as the successor of a Responses-only one, since every chat model answers Responses", () => {
    const responsesOnly: Partial<ModelEntry> = { endpoints: ["/v1/responses"], vendor_endpoints: ["/v1/responses"] };
    const old = chat("old", { ...responsesOnly, ...retired({ serve: false }) });
    const catalogue = Catalogue.fromData(catalogueOf(chat("new"), old), sources);
    expect(catalogue.notFoundError("old", "default").message).toContain("use `new` instead");
    const embedder = chat("new", { endpoints: ["/v1/embeddings"], embedding: { dimensions: 8, token_input: false } });
    expect(() => Catalogue.fromData(catalogueOf(embedder, old), sources)).toThrow(
      /old\.retired: successor new does not serve \/v1\/responses/,
    );
  });

  it("serve DeepSeek's old names by V4-Flash in the mode each stood for", () => {
    const catalogue = Catalogue.fromFile(shippedCatalogue, sources);
    expect(catalogue.find("deepseek-chat", "default")).toMatchObject({
      id: "deepseek-v4-flash",
      servedFor: { id: "deepseek-chat", thinking: "disabled" },
    });
    expect(catalogue.find("deepseek-reasoner", "default")).toMatchObject({
      id: "deepseek-v4-flash",
      servedFor: { id: "deepseek-reasoner", thinking: "enabled" },
    });
    expect(catalogue.list("premium").map((model) => model.id)).not.toContain("deepseek-chat");
  });

  it("are refused for a deprecation whose successor is unknown, going away too, or that is retired already", () => {
    const deprecated = (successor: string) => ({ deprecated: { shutdown_on: "2026-12-11", successor } });
    const load =
      (...models: ModelEntry[]) =>
      () =>
        Catalogue.fromData(catalogueOf(...models), sources);
    expect(load(chat("new"), chat("old", deprecated("new")))).not.toThrow();
    expect(load(chat("old", deprecated("missing")))).toThrow(/old.deprecated: unknown successor missing/);
    expect(load(chat("new", deprecated("newest")), chat("newest"), chat("old", deprecated("new")))).toThrow(
      /successor new is going away itself/,
    );
    expect(load(chat("new"), chat("old", { ...retired(), ...deprecated("new") }))).toThrow(/retired already/);
  });
});
