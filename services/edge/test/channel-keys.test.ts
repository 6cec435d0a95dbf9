import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { insecureChannel } from "@gateway/platform";
import { type ChannelHealth, RouterServiceClient } from "@gateway/proto/router/v1/router";
import {
  clearSimulatorRequests,
  repoRoot,
  scrapeMetrics,
  serviceEntry,
  serviceNode,
  simulatorRequests,
  startTestStack,
  sumOf,
  type TestStack,
  testClientOptions,
  testServiceTokenSecret,
} from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// gpt-4o-mini is served first by openai-pool, a channel with two (simulated) keys that calls the
// vendor by a dated id; openai-main stays behind it. deepseek gets a backup channel behind its main one.
const channels = `  openai-main: { vendor: openai, priority: 1 }
  openai-pool: { vendor: openai, api_keys_env: [POOL_KEY_A, POOL_KEY_B], model_map: { gpt-4o-mini: gpt-4o-mini-2024-07-18 } }
  deepseek-backup: { vendor: deepseek, priority: 1 }
`;
// Simulated channels send `sim-<channel>` for their first key and `sim-<channel>-2` for the second.
const refusedPoolKey = "sim-openai-pool";
// How the simulator's request log shows each key: its first and last four characters.
const seen = {
  refused: "sim-...pool",
  other: "sim-...ol-2",
  deepseekMain: "sim-...main",
  deepseekBackup: "sim-...ckup",
};

let stack: TestStack;
let client: OpenAI;
let directory: string;

async function upstream(marker: string) {
  const requests = await simulatorRequests(stack.simulatorUrl);
  return requests
    .filter((request) => JSON.stringify(request.body).includes(marker))
    .map((request) => ({
      key: (request.headers.authorization ?? "").replace(/^Bearer /, ""),
      model: request.body?.model,
      status: request.status,
    }));
}

const refuseKey = (apiKey: string, refusal: "invalid" | "quota") =>
  fetch(`${stack.simulatorUrl}/_sim/keys/refused`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ api_key: apiKey, refusal }),
  });

/** Runs the operator CLI against this stack's router, as an operator with the service-token secret would. */
const gw = (...args: string[]) =>
  promisify(execFile)(serviceNode, [serviceEntry.cli, ...args], {
    env: { ...process.env, GATEWAY_ROUTER_URL: stack.routerUrl, GATEWAY_SERVICE_TOKEN_SECRET: testServiceTokenSecret },
  });

function channelHealth(name: string): Promise<ChannelHealth> {
  const router = new RouterServiceClient(stack.routerUrl, insecureChannel(), testClientOptions("console"));
  return new Promise((resolve, reject) =>
    router.getChannelHealth({}, (error, list) => {
      router.close();
      if (error) reject(error);
      else resolve(list.channels.find((channel) => channel.name === name)!);
    }),
  );
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "gw-channel-keys-"));
  const cataloguePath = join(directory, "models.yaml");
  const shipped = readFileSync(join(repoRoot, "infra/catalogue/models.yaml"), "utf8");
  writeFileSync(cataloguePath, shipped.replace("  openai-main: { vendor: openai }\n", channels));
  stack = await startTestStack({ env: { CATALOGUE_PATH: cataloguePath } });
  const account = await stack.createAccount({ group: "premium" });
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.teardown();
  rmSync(directory, { recursive: true, force: true });
});

describe("a channel with two keys", () => {
  it("calls the vendor by the channel's id for the model and answers with the public id", async () => {
    const completion = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "mapped name" }],
    });
    expect(completion.model).toBe("gpt-4o-mini");
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "mapped stream" }],
      stream: true,
    });
    const models = new Set<string>();
    for await (const chunk of stream) models.add(chunk.model);
    expect([...models]).toEqual(["gpt-4o-mini"]);
    for (const marker of ["mapped name", "mapped stream"]) {
      expect((await upstream(marker)).map((call) => call.model)).toEqual(["gpt-4o-mini-2024-07-18"]);
    }
  });

  it("serves every request when the vendor refuses one key, which ends disabled, and tells the operator", async () => {
    await clearSimulatorRequests(stack.simulatorUrl);
    await refuseKey(refusedPoolKey, "invalid");
    for (let turn = 0; turn < 6; turn += 1) {
      const completion = await client.chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: `two keys ${turn}` }],
      });
      expect(completion.choices[0]!.message.content).toMatch(/\w/);
    }
    const calls = (await Promise.all([0, 1, 2, 3, 4, 5].map((turn) => upstream(`two keys ${turn}`)))).flat();
    // The refused key is tried once, answered 401, and never again; the other key serves everything.
    expect(calls.filter((call) => call.key === seen.refused)).toEqual([
      { key: seen.refused, model: "gpt-4o-mini-2024-07-18", status: 401 },
    ]);
    expect(calls.filter((call) => call.key === seen.other).map((call) => call.status)).toEqual([
      200, 200, 200, 200, 200, 200,
    ]);

    const pool = await channelHealth("openai-pool");
    expect(pool.keysExhausted).toBe(false);
    expect(pool.keys.map((key) => [key.masked, key.disabled, key.reason, key.vendorStatus])).toEqual([
      ["...ol", true, "key_invalid", 401],
      ["sim...ol-2", false, "", 0],
    ]);
    const metrics = await scrapeMetrics(stack.metricsUrls.router);
    expect(
      sumOf(metrics, "gateway_channel_key_disabled_total", { channel: "openai-pool", reason: "key_invalid" }),
    ).toBe(1);
    expect(sumOf(metrics, "gateway_channel_disabled_keys", { channel: "openai-pool" })).toBe(1);
    const warning = stack.processes.router.output.find((line) => line.includes("vendor refused a channel key"));
    expect(warning).toContain('"channel":"openai-pool"');
    expect(warning).toContain('"reason":"key_invalid"');
    expect(warning).not.toContain(refusedPoolKey);
  });

  it("reports each key's answer and latency through gw channel test", async () => {
    const { stdout } = await gw("channel", "test", "openai-pool", "--model", "gpt-4o-mini", "--json");
    const report = JSON.parse(stdout) as {
      model: string;
      upstream_model: string;
      keys: {
        masked_key: string;
        ok: boolean;
        status: number;
        refusal: string | null;
        latency_ms: number;
        answer: string;
        disabled: boolean;
      }[];
    };
    expect(report).toMatchObject({ model: "gpt-4o-mini", upstream_model: "gpt-4o-mini-2024-07-18" });
    expect(report.keys).toMatchObject([
      { masked_key: "...ol", ok: false, status: 401, refusal: "key_invalid", disabled: true },
      { masked_key: "sim...ol-2", ok: true, status: 200, refusal: null, disabled: false },
    ]);
    expect(report.keys[0]!.answer).toContain("Incorrect API key");
    expect(report.keys[1]!.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it("says so when gw channel test names no channel the catalogue has", async () => {
    const failed = await gw("channel", "test", "no-such-channel").catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed).toMatchObject({ code: 1, stderr: expect.stringContaining("No channel is named `no-such-channel`") });
  });
});

describe("a channel whose only key runs out of vendor balance", () => {
  it("is disabled and traffic moves to the other channel, with no failed request", async () => {
    await refuseKey("sim-deepseek-main", "quota");
    for (let turn = 0; turn < 3; turn += 1) {
      const completion = await client.chat.completions.create({
        model: "deepseek-v4-flash",
        messages: [{ role: "user", content: `spent balance ${turn}` }],
      });
      expect(completion.choices[0]!.message.content).toMatch(/\w/);
    }
    const calls = (await Promise.all([0, 1, 2].map((turn) => upstream(`spent balance ${turn}`)))).flat();
    expect(calls.map((call) => [call.key, call.status])).toEqual([
      [seen.deepseekMain, 402],
      [seen.deepseekBackup, 200],
      [seen.deepseekBackup, 200],
      [seen.deepseekBackup, 200],
    ]);
    const main = await channelHealth("deepseek-main");
    expect(main.keysExhausted).toBe(true);
    expect(main.keys).toMatchObject([{ disabled: true, reason: "quota_exhausted", vendorStatus: 402 }]);
    const metrics = await scrapeMetrics(stack.metricsUrls.router);
    expect(
      sumOf(metrics, "gateway_channel_disabled_total", { channel: "deepseek-main", reason: "quota_exhausted" }),
    ).toBe(1);
    expect(sumOf(metrics, "gateway_channels_disabled")).toBe(1);
    expect(stack.processes.router.output.some((line) => line.includes("channel disabled until an operator"))).toBe(
      true,
    );
  });
});
