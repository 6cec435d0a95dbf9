import type { Channel } from "@gateway/catalogue";
import { channelKey } from "@gateway/catalogue";
import { mapVendorError } from "@gateway/outbound-http";
import { describe, expect, it } from "vitest";
import { type ChannelDisabler, InMemoryChannelDisabler, KeepRefusedKeys } from "./channel-disabler.js";
import { ChannelHealth } from "./channel-health.js";
import { KeyRotation } from "./channel-keys.js";
import { type FailoverContext, type KeyRefused, runWithFailover } from "./run-with-failover.js";

const channel = (name: string, priority: number, secrets: string[]) =>
  ({ name, priority, weight: 1, keys: secrets.map(channelKey) }) as unknown as Channel;

const invalidKey = () =>
  mapVendorError(
    401,
    JSON.stringify({
      error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" },
    }),
    {},
  );
const quotaSpent = () =>
  mapVendorError(
    429,
    JSON.stringify({
      error: { message: "You exceeded your current quota.", type: "insufficient_quota", code: "insufficient_quota" },
    }),
    {},
  );
const overloaded = () => mapVendorError(503, "", {});

function setUp(
  channels: Channel[],
  health = new ChannelHealth({ failureThreshold: 2, cooldownMs: 10_000 }),
  disabler: ChannelDisabler = new InMemoryChannelDisabler(),
) {
  const refused: KeyRefused[] = [];
  const context: FailoverContext = {
    channels,
    health,
    keys: { rotation: new KeyRotation(disabler), disabler },
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, deadlineMs: 5_000 },
    signal: new AbortController().signal,
    startedAt: Date.now(),
    onKeyRefused: (event) => refused.push(event),
  };
  return { context, disabler, refused, health };
}

/** Runs one request where the vendor answers each key as `answer` says, and returns the keys tried. */
async function request(context: FailoverContext, answer: (secret: string) => Error | undefined) {
  const tried: string[] = [];
  const result = await runWithFailover(context, async (keyed) => {
    tried.push(keyed.key.secret);
    const error = answer(keyed.key.secret);
    if (error) throw error;
    return `served by ${keyed.name} with ${keyed.key.masked}`;
  }).catch((error: unknown) => error);
  return { tried, result };
}

describe("a channel's keys", () => {
  it("take turns, request by request", async () => {
    const { context } = setUp([channel("pool", 0, ["key-a", "key-b", "key-c"])]);
    const used: string[] = [];
    for (let turn = 0; turn < 6; turn += 1) used.push(...(await request(context, () => undefined)).tried);
    expect(used).toEqual(["key-a", "key-b", "key-c", "key-a", "key-b", "key-c"]);
  });

  it("lose a key the vendor refuses, and the request is served by the next key without failing", async () => {
    const { context, disabler, refused } = setUp([channel("pool", 0, ["key-bad", "key-good"])]);
    const first = await request(context, (secret) => (secret === "key-bad" ? invalidKey() : undefined));
    expect(first).toEqual({ tried: ["key-bad", "key-good"], result: "served by pool with ...od" });
    expect(disabler.disablement("pool", channelKey("key-bad").id)).toMatchObject({
      reason: "key_invalid",
      vendorStatus: 401,
      vendorMessage: "Incorrect API key provided.",
    });
    expect(refused.map(({ channel, channelDisabled }) => [channel.key.masked, channelDisabled])).toEqual([
      ["...ad", false],
    ]);
    // The refused key is not tried again.
    for (let turn = 0; turn < 3; turn += 1) {
      expect((await request(context, () => undefined)).tried).toEqual(["key-good"]);
    }
  });

  it("stay in service when the operator keeps refused keys: the refusal is the answer, every time", async () => {
    const { context } = setUp([channel("pool", 0, ["key-bad"])], undefined, new KeepRefusedKeys());
    for (let turn = 0; turn < 2; turn += 1) {
      const { tried, result } = await request(context, () => invalidKey());
      expect(tried).toEqual(["key-bad"]);
      expect(result).toMatchObject({ keyRefusal: "key_invalid" });
    }
  });

  it.each([
    ["a spent vendor balance", quotaSpent, "quota_exhausted"],
    ["a refused key", invalidKey, "key_invalid"],
  ])(
    "disable the channel with %s on its last key, and traffic moves to the next channel",
    async (_case, refusal, reason) => {
      const { context, refused, health } = setUp([
        channel("main", 0, ["main-1", "main-2"]),
        channel("backup", 1, ["backup-1"]),
      ]);
      const { tried, result } = await request(context, (secret) => (secret.startsWith("main") ? refusal() : undefined));
      expect(tried).toEqual(["main-1", "main-2", "backup-1"]);
      expect(result).toBe("served by backup with ...-1");
      expect(refused.map((event) => [event.channel.name, event.error.keyRefusal, event.channelDisabled])).toEqual([
        ["main", reason, false],
        ["main", reason, true],
      ]);
      // A refusal is the key's fault: the channel's circuit is not charged with it.
      expect(health.snapshot("main")).toMatchObject({ circuit: 0, consecutiveFailures: 0 });
      expect((await request(context, () => undefined)).tried).toEqual(["backup-1"]);
    },
  );

  it("answer the refusal when no key is left anywhere, then a 503 naming the refusal without calling the vendor", async () => {
    const { context } = setUp([channel("only", 0, ["key-a"])]);
    const first = await request(context, () => invalidKey());
    expect(first.tried).toEqual(["key-a"]);
    expect(first.result).toMatchObject({
      httpStatus: 500,
      message: "The model provider refused the gateway's request.",
    });
    const next = await request(context, () => undefined);
    expect(next.tried).toEqual([]);
    expect(next.result).toMatchObject({ httpStatus: 503, message: expect.stringContaining("refused every key") });
  });

  it("serve again once an operator re-enables a key", async () => {
    const { context, disabler } = setUp([channel("only", 0, ["key-a"])]);
    await request(context, () => invalidKey());
    disabler.enable("only", channelKey("key-a").id);
    expect(await request(context, () => undefined)).toEqual({ tried: ["key-a"], result: "served by only with ...-a" });
  });
});

describe("circuits stay per channel", () => {
  it("opens the failing channel's circuit only, and probes it half-open after the cooldown", async () => {
    let now = 0;
    const health = new ChannelHealth({ failureThreshold: 2, cooldownMs: 1_000 }, () => now);
    const { context, disabler } = setUp([channel("main", 0, ["main-1"]), channel("backup", 1, ["backup-1"])], health);
    for (let turn = 0; turn < 2; turn += 1) {
      const { tried } = await request(context, (secret) => (secret === "main-1" ? overloaded() : undefined));
      expect(tried).toEqual(["main-1", "backup-1"]);
    }
    expect(health.snapshot("main")).toMatchObject({ circuit: 1, consecutiveFailures: 2 });
    expect(health.snapshot("backup")).toMatchObject({ circuit: 0, consecutiveFailures: 0 });
    expect((await request(context, () => undefined)).tried).toEqual(["backup-1"]);
    // Outages disable no key.
    expect([...disabler.disabledKeys()]).toEqual([]);
    now = 1_000;
    expect(health.snapshot("main").circuit).toBe(2);
    expect((await request(context, () => undefined)).tried).toEqual(["main-1"]);
    expect(health.snapshot("main")).toMatchObject({ circuit: 0, consecutiveFailures: 0 });
  });
});
