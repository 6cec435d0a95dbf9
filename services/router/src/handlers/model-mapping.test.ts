import type { RequestFacts } from "@gateway/billing";
import type { CatalogueModel } from "@gateway/catalogue";
import { channelKey } from "@gateway/catalogue";
import { describe, expect, it } from "vitest";
import type { KeyedChannel } from "../routing/channel-keys.js";
import { answeredModel, upstreamModel } from "./route-request.js";

const model = { id: "gpt-4o-mini", vendor: "openai" } as CatalogueModel;
const keyed = (modelMap: Record<string, string>) =>
  ({ name: "openai-azure", modelMap, key: channelKey("sk-a") }) as unknown as KeyedChannel;

describe("model name mapping", () => {
  it("calls the vendor by the channel's id for the model, and leaves unmapped models alone", () => {
    expect(upstreamModel(model, keyed({ "gpt-4o-mini": "my-deployment" }))).toMatchObject({ id: "my-deployment" });
    expect(upstreamModel(model, keyed({}))).toBe(model);
  });

  it("answers with the public id whatever a mapped vendor names, and with the vendor's name otherwise", () => {
    const facts = (modelMap: Record<string, string>) =>
      ({ model, channel: keyed(modelMap) }) as unknown as RequestFacts;
    expect(answeredModel("my-deployment-2026-01-01", facts({ "gpt-4o-mini": "my-deployment" }))).toBe("gpt-4o-mini");
    expect(answeredModel("gpt-4o-mini-2024-07-18", facts({}))).toBe("gpt-4o-mini-2024-07-18");
    expect(answeredModel("", facts({}))).toBe("gpt-4o-mini");
  });
});
