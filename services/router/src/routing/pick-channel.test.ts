import type { Channel } from "@gateway/catalogue";
import { describe, expect, it } from "vitest";
import { pickChannel } from "./pick-channel.js";

const channel = (name: string, priority: number, weight: number) => ({ name, priority, weight }) as Channel;

describe("picking a channel", () => {
  it("uses only the best priority", () => {
    const channels = [channel("backup", 1, 100), channel("main", 0, 1)];
    expect(pickChannel(channels, () => 0.99)?.name).toBe("main");
  });

  it("spreads by weight among equals", () => {
    const channels = [channel("a", 0, 1), channel("b", 0, 3)];
    expect(pickChannel(channels, () => 0.1)?.name).toBe("a");
    expect(pickChannel(channels, () => 0.5)?.name).toBe("b");
  });

  it("has nothing to pick from an empty list", () => {
    expect(pickChannel([])).toBeUndefined();
  });
});
