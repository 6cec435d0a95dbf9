import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { Catalogue, vendorModelId } from "./catalogue.js";
import { type CatalogueFile, catalogueFileSchema } from "./catalogue-schema.js";
import { keyFingerprint, maskKey } from "./channel-key.js";

const shippedCatalogue = fileURLToPath(new URL("../../../infra/catalogue/models.yaml", import.meta.url));
const simulatorUrl = "http://127.0.0.1:8090";

/** The shipped file with more channels (parsed as the file would be). */
function withChannels(channels: Record<string, unknown>): CatalogueFile {
  const raw = parse(readFileSync(shippedCatalogue, "utf8")) as { channels: Record<string, unknown> };
  return catalogueFileSchema.parse({ ...raw, channels: { ...raw.channels, ...channels } });
}

describe("channels with several keys", () => {
  const data = withChannels({ "openai-pool": { vendor: "openai", api_keys_env: ["POOL_KEY_A", "POOL_KEY_B"] } });
  const poolOf = (catalogue: Catalogue) =>
    catalogue.find("gpt-4o-mini", "default")!.channels.find((channel) => channel.name === "openai-pool")!;

  it("takes every key its variables hold, each with a fingerprint and a masked form", () => {
    const catalogue = Catalogue.fromData(data, {
      env: { POOL_KEY_A: "sk-proj-aaaaaaaaaaaaaaaa1111", POOL_KEY_B: "sk-proj-bbbbbbbbbbbbbbbb2222" },
      simulatorUrl,
    });
    const pool = poolOf(catalogue);
    expect(pool.simulated).toBe(false);
    expect(pool.keys).toEqual([
      {
        id: keyFingerprint("sk-proj-aaaaaaaaaaaaaaaa1111"),
        masked: "sk-...1111",
        secret: "sk-proj-aaaaaaaaaaaaaaaa1111",
      },
      {
        id: keyFingerprint("sk-proj-bbbbbbbbbbbbbbbb2222"),
        masked: "sk-...2222",
        secret: "sk-proj-bbbbbbbbbbbbbbbb2222",
      },
    ]);
  });

  it("serves with the keys that are set, and with simulated keys, one per variable, when none is", () => {
    const one = Catalogue.fromData(data, { env: { POOL_KEY_B: "sk-only-bbbbbbbbbbbb" }, simulatorUrl });
    expect(poolOf(one).keys.map((key) => key.secret)).toEqual(["sk-only-bbbbbbbbbbbb"]);
    const simulated = Catalogue.fromData(data, { env: {}, simulatorUrl });
    expect(poolOf(simulated).keys.map((key) => key.secret)).toEqual(["sim-openai-pool", "sim-openai-pool-2"]);
  });

  it("never shows more than the ends of a key", () => {
    expect(maskKey("sk-ant-api03-Ab3dEf6hIj9kLm2nOp5q")).toBe("sk-...Op5q");
    expect(maskKey("short-key")).toBe("...ey");
    expect(keyFingerprint("sk-a")).toMatch(/^[0-9a-f]{12}$/);
    expect(keyFingerprint("sk-a")).toBe(keyFingerprint("sk-a"));
  });
});

describe("model name mapping", () => {
  it("calls the vendor by the mapped id on the channel that maps it, and by the public id elsewhere", () => {
    const data = withChannels({
      "openai-azure": { vendor: "openai", model_map: { "gpt-4o-mini": "my-4o-mini-deployment" } },
    });
    const model = Catalogue.fromData(data, { env: {}, simulatorUrl }).find("gpt-4o-mini", "default")!;
    const byName = new Map(model.channels.map((channel) => [channel.name, channel]));
    expect(vendorModelId(byName.get("openai-azure")!, "gpt-4o-mini")).toBe("my-4o-mini-deployment");
    expect(vendorModelId(byName.get("openai-main")!, "gpt-4o-mini")).toBe("gpt-4o-mini");
  });

  it("refuses a mapping of a model the catalogue lacks or another vendor serves", () => {
    const data = withChannels({
      "openai-azure": { vendor: "openai", model_map: { "no-such-model": "x", "claude-opus-4-7": "y" } },
    });
    expect(() => Catalogue.fromData(data, { env: {}, simulatorUrl })).toThrow(
      /openai-azure.model_map: unknown model no-such-model[\s\S]*claude-opus-4-7 is not a openai model/,
    );
  });
});
