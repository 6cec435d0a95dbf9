import { fileURLToPath } from "node:url";
import type { CatalogueHolder } from "@gateway/catalogue";
import { Catalogue } from "@gateway/catalogue";
import { CircuitState } from "@gateway/proto/router/v1/router";
import { describe, expect, it } from "vitest";
import { InMemoryChannelDisabler } from "../routing/channel-disabler.js";
import { ChannelHealth } from "../routing/channel-health.js";
import { KeyRotation } from "../routing/channel-keys.js";
import { describeCatalogue, getChannelHealth } from "./admin-views.js";

const path = fileURLToPath(new URL("../../../../infra/catalogue/models.yaml", import.meta.url));
const holderOf = (catalogue: Catalogue) => ({ current: catalogue }) as CatalogueHolder;
const keysOf = (disabler = new InMemoryChannelDisabler()) => ({ rotation: new KeyRotation(disabler), disabler });

describe("the admin views", () => {
  it("reports an open circuit with its failures, closed ones for channels never used, and disabled channels", async () => {
    let now = 1_000;
    const health = new ChannelHealth({ failureThreshold: 2, cooldownMs: 30_000 }, () => now);
    health.recordFailure("openai-main");
    health.recordFailure("openai-main");
    now += 10_000;
    // Production without keys but Anthropic's: every other channel is left out.
    const catalogue = Catalogue.fromFile(path, { env: { ANTHROPIC_API_KEY: "key" }, simulatorUrl: undefined });
    const { channels } = await getChannelHealth({ catalogue: holderOf(catalogue), health, keys: keysOf() })();

    const openai = channels.find((channel) => channel.name === "openai-main")!;
    expect(openai).toMatchObject({ circuit: CircuitState.CIRCUIT_STATE_OPEN, consecutiveFailures: 2, disabled: true });
    expect(openai.reopensInMs).toBe(20_000);
    const anthropic = channels.find((channel) => channel.name === "anthropic-main")!;
    expect(anthropic).toMatchObject({
      vendor: "anthropic",
      circuit: CircuitState.CIRCUIT_STATE_CLOSED,
      disabled: false,
      simulated: false,
    });
    expect(anthropic.models).toBe(
      catalogue.source.models.filter((model) => model.vendor === "anthropic" && !model.retired).length,
    );
  });

  it("shows each key masked with the vendor's refusal, and a channel whose every key was refused", async () => {
    const health = new ChannelHealth({ failureThreshold: 2, cooldownMs: 30_000 });
    const env = { ANTHROPIC_API_KEY: "sk-ant-api03-first-key-0001" };
    const catalogue = Catalogue.fromFile(path, { env, simulatorUrl: undefined });
    const disabler = new InMemoryChannelDisabler();
    const view = getChannelHealth({ catalogue: holderOf(catalogue), health, keys: keysOf(disabler) });
    const anthropic = async () => (await view()).channels.find((channel) => channel.name === "anthropic-main")!;

    expect(await anthropic()).toMatchObject({
      keysExhausted: false,
      keys: [{ masked: "sk-...0001", disabled: false }],
    });
    const [key] = (await anthropic()).keys;
    const refusal = {
      reason: "quota_exhausted",
      atMs: 5,
      vendorStatus: 400,
      vendorMessage: "Your credit balance is too low",
    } as const;
    disabler.disable("anthropic-main", key!.id, refusal);
    expect(await anthropic()).toMatchObject({
      keysExhausted: true,
      keys: [{ masked: "sk-...0001", disabled: true, reason: "quota_exhausted", disabledAtMs: 5, vendorStatus: 400 }],
    });
    expect(JSON.stringify(await view())).not.toContain(env.ANTHROPIC_API_KEY);
  });

  it("describes every model with its kind and prices, servable or not", async () => {
    const catalogue = Catalogue.fromFile(path, { env: {}, simulatorUrl: undefined });
    const { groups, models } = await describeCatalogue({ catalogue: holderOf(catalogue) })();
    expect(groups.map((group) => group.name)).toEqual(Object.keys(catalogue.source.groups));
    // ledger.model_groups bills premium keys at 1.5x: the catalogue states the same.
    expect(groups.find((group) => group.name === "premium")).toMatchObject({ multiplierBasisPoints: 15_000 });
    expect(groups.find((group) => group.name === "default")).toMatchObject({ multiplierBasisPoints: 10_000 });
    expect(models).toHaveLength(catalogue.source.models.length);
    expect(models.every((model) => !model.servable)).toBe(true);
    const mini = models.find((model) => model.id === "gpt-4o-mini")!;
    expect(mini).toMatchObject({ kind: "chat", ownedBy: "openai", prices: { input: 1_080_000, output: 4_320_000 } });
    const whisper = models.find((model) => model.id === "whisper-1")!;
    expect(whisper.kind).toBe("audio");
    expect(whisper.pricePerSecond).toBeGreaterThan(0);
    const imagen = models.find((model) => model.id === "imagen-4.0-generate-001")!;
    expect(imagen.kind).toBe("image");
    expect(imagen.imagePrices.length).toBeGreaterThan(0);
  });
});
