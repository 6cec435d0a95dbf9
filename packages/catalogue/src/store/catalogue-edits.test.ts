import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { checkCatalogue } from "../catalogue.js";
import type { CatalogueFile } from "../catalogue-schema.js";
import { applyEdit, mergePatch } from "./catalogue-edits.js";
import { CatalogueRefused } from "./catalogue-store.js";

const shipped = checkCatalogue(
  parse(readFileSync(new URL("../../../../infra/catalogue/models.yaml", import.meta.url), "utf8")),
);
if (!shipped.ok) throw new Error(shipped.problems.join("\n"));
const catalogue: CatalogueFile = shipped.data;

describe("catalogue edits", () => {
  it("merge a patch: objects merge, null removes, arrays replace", () => {
    expect(mergePatch({ a: { b: 1, c: 2 }, d: [1], e: 1 }, { a: { b: 3 }, d: [2], e: null })).toEqual({
      a: { b: 3, c: 2 },
      d: [2],
    });
  });

  it("give a group models and take them away in one change", () => {
    const next = applyEdit(
      {
        action: "group.add",
        name: "vip",
        entry: { description: "partners" },
        models: { add: ["gpt-4o-mini"], remove: [] },
      },
      catalogue,
    ) as CatalogueFile;
    expect(next.models.find((model) => model.id === "gpt-4o-mini")?.groups).toContain("vip");
    expect(checkCatalogue(next).ok).toBe(true);
    const back = applyEdit(
      { action: "group.update", name: "vip", patch: {}, models: { add: [], remove: ["gpt-4o-mini"] } },
      next,
    ) as CatalogueFile;
    expect(back.models.find((model) => model.id === "gpt-4o-mini")?.groups).not.toContain("vip");
  });

  it("add a channel's key and remove one named by its masked form", () => {
    const withKeys = applyEdit(
      { action: "channel.keys", name: "openai-main", add: ["sk-first-1111", "sk-second-2222"], remove: [] },
      catalogue,
    ) as CatalogueFile;
    expect(withKeys.channels["openai-main"]?.api_keys).toEqual(["sk-first-1111", "sk-second-2222"]);
    const removed = applyEdit(
      { action: "channel.keys", name: "openai-main", add: ["sk-third-3333"], remove: ["sk-…1111"] },
      withKeys,
    ) as CatalogueFile;
    expect(removed.channels["openai-main"]?.api_keys).toEqual(["sk-second-2222", "sk-third-3333"]);
    expect(() =>
      applyEdit({ action: "channel.keys", name: "openai-main", add: [], remove: ["sk-…9999"] }, removed),
    ).toThrow(/0 stored keys are sk-…9999/);
  });

  it("refuse to add what exists and to change what does not", () => {
    expect(() =>
      applyEdit({ action: "channel.add", name: "openai-main", entry: { vendor: "openai" } }, catalogue),
    ).toThrow(CatalogueRefused);
    expect(() => applyEdit({ action: "model.update", name: "no-such-model", patch: {} }, catalogue)).toThrow(
      /no model no-such-model/,
    );
    expect(() => applyEdit({ action: "channel.enable", name: "nowhere" }, undefined)).toThrow(/empty/);
  });

  it("keep a channel's stored keys through an import of a file that cannot carry them", () => {
    const stored = {
      ...catalogue,
      channels: { ...catalogue.channels, extra: { vendor: "openai", priority: 0, weight: 1, api_keys: ["sk-kept"] } },
    };
    const file = JSON.parse(
      JSON.stringify({ ...stored, channels: { ...stored.channels, extra: { vendor: "openai" } } }),
    );
    const imported = applyEdit({ action: "catalogue.import", catalogue: file }, stored) as CatalogueFile;
    expect(imported.channels.extra?.api_keys).toEqual(["sk-kept"]);
  });

  it("send a channel's keys only where they were given for: a move brings new keys or confirms the move", () => {
    const keyed = { vendor: "openai", priority: 0, weight: 1, api_keys: ["sk-kept-000000"] };
    const stored = { ...catalogue, channels: { ...catalogue.channels, extra: keyed } };
    const away = { base_url: "https://collector.example/v1" };
    const move = (extra: object) =>
      applyEdit({ action: "channel.update", name: "extra", patch: away, ...extra }, stored);
    expect(() => move({})).toThrow(/moving it from openai at its vendor's address to openai at collector\.example/);
    expect(() => move({ move_keys: false })).toThrow(CatalogueRefused);
    expect((move({ move_keys: true }) as CatalogueFile).channels.extra?.api_keys).toEqual(["sk-kept-000000"]);
    const rekeyed = applyEdit(
      { action: "channel.update", name: "extra", patch: { ...away, api_keys: ["sk-new-111111"] } },
      stored,
    ) as CatalogueFile;
    expect(rekeyed.channels.extra?.api_keys).toEqual(["sk-new-111111"]);
    const environmentKeyed = () =>
      applyEdit({ action: "channel.update", name: "openai-main", patch: { vendor: "xai" } }, catalogue);
    expect(environmentKeyed).toThrow(/its vendor's key from the environment/);
    const file = JSON.parse(JSON.stringify({ ...stored, channels: { ...stored.channels, extra: { vendor: "xai" } } }));
    expect(() => applyEdit({ action: "catalogue.import", catalogue: file }, stored)).toThrow(/give its keys/);
  });

  it("disable a channel with its reason and enable it again without one", () => {
    const disabled = applyEdit(
      { action: "channel.disable", name: "openai-main", reason: "quota" },
      catalogue,
    ) as CatalogueFile;
    expect(disabled.channels["openai-main"]).toMatchObject({ disabled: true, disabled_reason: "quota" });
    const enabled = applyEdit({ action: "channel.enable", name: "openai-main" }, disabled) as CatalogueFile;
    expect(enabled.channels["openai-main"]?.disabled).toBe(false);
    expect(enabled.channels["openai-main"]?.disabled_reason).toBeUndefined();
  });
});
