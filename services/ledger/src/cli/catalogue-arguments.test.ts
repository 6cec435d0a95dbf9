import { describe, expect, it } from "vitest";
import { CommandLineError, parseArguments } from "./parse-arguments.js";

describe("the catalogue's commands", () => {
  it("turns a channel with two keys, its models and a name mapping into one change", () => {
    const argv = ["channel", "add", "openai-2", "--vendor", "openai", "--base-url", "https://api.example.com/v1"];
    const more = [
      "--key",
      "sk-one",
      "--key",
      "sk-two",
      "--models",
      "gpt-4o-mini,gpt-4o",
      "--map",
      "gpt-4o=gpt-4o-2024-11-20",
    ];
    expect(parseArguments([...argv, ...more, "--weight", "3", "--priority", "1", "--json"])).toEqual({
      kind: "catalogue-change",
      edit: {
        action: "channel.add",
        name: "openai-2",
        entry: {
          vendor: "openai",
          base_url: "https://api.example.com/v1",
          api_keys: ["sk-one", "sk-two"],
          models: ["gpt-4o-mini", "gpt-4o"],
          model_map: { "gpt-4o": "gpt-4o-2024-11-20" },
          weight: 3,
          priority: 1,
        },
      },
      json: true,
    });
  });

  it("sends only the fields given, prices as micro-yuan per million tokens", () => {
    expect(parseArguments(["model", "update", "gpt-4o-mini", "--input", "1.05", "--cache-read", "0.000001"])).toEqual({
      kind: "catalogue-change",
      edit: { action: "model.update", name: "gpt-4o-mini", patch: { price: { input: 1_050_000, cache_read: 1 } } },
      json: false,
    });
    expect(parseArguments(["group", "update", "premium", "--multiplier", "1.75", "--add-models", "gpt-4o"])).toEqual({
      kind: "catalogue-change",
      edit: {
        action: "group.update",
        name: "premium",
        patch: { multiplier_basis_points: 17_500 },
        models: { add: ["gpt-4o"] },
      },
      json: false,
    });
    expect(parseArguments(["model", "retire", "old", "--successor", "new", "--serve"])).toMatchObject({
      edit: { action: "model.retire", name: "old", successor: "new", serve: true },
    });
    expect(parseArguments(["catalogue", "export"])).toEqual({ kind: "catalogue-export", file: undefined, json: false });
    expect(parseArguments(["catalogue", "import", "models.yaml"])).toMatchObject({ file: "models.yaml" });
  });

  it("names what is missing or malformed", () => {
    const fails = (argv: string[], message: RegExp) => expect(() => parseArguments(argv)).toThrow(message);
    expect(() => parseArguments(["model", "add", "m", "--vendor", "openai"])).toThrow(CommandLineError);
    fails(["model", "add", "m", "--vendor", "openai"], /model add needs --context-window/);
    fails(["model", "update", "m", "--input", "1,5"], /--input must be yuan/);
    fails(["model", "update", "m"], /nothing to change/);
    fails(["channel", "add", "c", "--key", "k"], /channel add needs --vendor/);
    fails(["channel", "add", "c", "--vendor", "openai", "--map", "a"], /--map takes PUBLIC_ID=VENDOR_ID/);
    fails(["group", "add", "g"], /group add needs --description/);
  });
});
