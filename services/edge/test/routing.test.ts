import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  backupChannel,
  backupChannelEnv,
  clearSimulatorRequests,
  eventually,
  queryRows,
  queueSimulatorFault,
  simulatorRequests,
  startTestStack,
  type TestStack,
  writeCatalogueWithChannels,
} from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

// gpt-4o-mini gets a second, lower-priority channel, openai-backup (see backupChannel).
const { mainKey, mainSeen, backupSeen } = backupChannel;

let stack: TestStack;
let client: OpenAI;
let directory: string;
let cataloguePath: string;

const queueFault = (fault: Record<string, unknown>) => queueSimulatorFault(stack.simulatorUrl, fault);

async function upstreamKeys(marker: string): Promise<string[]> {
  const requests = await simulatorRequests(stack.simulatorUrl);
  return requests
    .filter((request) => JSON.stringify(request.body).includes(marker))
    .map((request) => (request.headers.authorization ?? "").replace(/^Bearer /, ""));
}

async function servedChannel(requestId: string): Promise<string> {
  const rows = await eventually(async () => {
    const found = await queryRows<{ channel: string }>(
      stack.databaseUrl,
      "SELECT channel FROM ledger.usage_records WHERE request_id = $1",
      [requestId],
    );
    return found.length > 0 ? found : undefined;
  });
  return rows[0]!.channel;
}

const ask = (content: string) =>
  client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content }] });

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "gw-routing-"));
  cataloguePath = join(directory, "models.yaml");
  stack = await startTestStack({ env: backupChannelEnv(cataloguePath) });
  const account = await stack.createAccount({ group: "premium" });
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
});
afterEach(async () => {
  await fetch(`${stack.simulatorUrl}/_sim/faults`, { method: "DELETE" });
  await clearSimulatorRequests(stack.simulatorUrl);
});
afterAll(async () => {
  await stack?.teardown();
  rmSync(directory, { recursive: true, force: true });
});

describe("failover between channels", () => {
  it.each([429, 500, 503, 529])("moves to the backup channel when the main one answers %i", async (status) => {
    await queueFault({ status, api_key: mainKey });
    const completion = await ask(`failover ${status}`);
    expect(completion.choices[0]!.message.content).toMatch(/\w/);
    expect(await upstreamKeys(`failover ${status}`)).toEqual([mainSeen, backupSeen]);
    expect(await servedChannel(completion._request_id!)).toBe("openai-backup");
    // A success on the main channel keeps its circuit closed for the next case.
    await ask("healthy");
  });

  it("moves to the backup channel when the main one times out before the first byte", async () => {
    await queueFault({ hang: true, api_key: mainKey });
    const completion = await ask("failover timeout");
    expect(await upstreamKeys("failover timeout")).toEqual([mainSeen, backupSeen]);
    expect(await servedChannel(completion._request_id!)).toBe("openai-backup");
    await ask("healthy");
  });

  it("retries a stream that failed before its first chunk", async () => {
    await queueFault({ status: 502, api_key: mainKey });
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "stream failover" }],
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text.length).toBeGreaterThan(0);
    expect(await upstreamKeys("stream failover")).toEqual([mainSeen, backupSeen]);
  });

  it("never retries a stream once output has reached the client, and reports the break", async () => {
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "cut stream [sim:cut_after=2]" }],
      stream: true,
    });
    let text = "";
    await expect(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      })(),
    ).rejects.toThrow();
    expect(text.length).toBeGreaterThan(0);
    expect(await upstreamKeys("cut stream")).toHaveLength(1);
  });

  it("does not retry the vendor's verdict on a bad request", async () => {
    await expect(ask("bad request [sim:status=400]")).rejects.toMatchObject({ status: 400 });
    expect(await upstreamKeys("bad request")).toHaveLength(1);
  });
});

describe("circuit breaking", () => {
  it("skips a channel that keeps failing, then brings it back after a successful probe", async () => {
    await queueFault({ status: 500, api_key: mainKey, count: 3 });
    for (const attempt of [1, 2, 3]) await ask(`breaker ${attempt}`);
    const skipped = await ask("breaker open");
    expect(await upstreamKeys("breaker open")).toEqual([backupSeen]);
    expect(await servedChannel(skipped._request_id!)).toBe("openai-backup");
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const probe = await ask("breaker probe");
    expect(await upstreamKeys("breaker probe")).toEqual([mainSeen]);
    expect(await servedChannel(probe._request_id!)).toBe("openai-main");
  });

  it("answers an OpenAI-shaped 503 with a retry delay when every attempt fails", async () => {
    await queueFault({ status: 503, count: 10 });
    const response = await fetch(`${stack.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${client.apiKey}` },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "exhausted" }] }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get("x-should-retry")).toBe("true");
    expect(Number(response.headers.get("retry-after-ms"))).toBeGreaterThan(0);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
    expect(await upstreamKeys("exhausted")).toHaveLength(3);
  });
});

describe("catalogue reload", () => {
  it("takes a new catalogue on SIGHUP and keeps the old one when the new file is broken", async () => {
    const models = async () => {
      const ids: string[] = [];
      for await (const model of client.models.list()) ids.push(model.id);
      return ids;
    };
    writeCatalogueWithChannels(cataloguePath, backupChannel.extraChannels);
    const shipped = readFileSync(cataloguePath, "utf8");
    // Renamed, the entry still names its prices in the dataset (gpt-4o-mini's).
    const renamed = "  - id: gpt-4o-mini-reloaded\n    dataset_id: gpt-4o-mini\n";
    writeFileSync(cataloguePath, shipped.replace("  - id: gpt-4o-mini\n", renamed));
    stack.processes.router.child.kill("SIGHUP");
    await eventually(async () => ((await models()).includes("gpt-4o-mini-reloaded") ? true : undefined));

    writeFileSync(cataloguePath, "models: [ this is not a catalogue");
    stack.processes.router.child.kill("SIGHUP");
    await eventually(async () =>
      stack.processes.router.output.some((line) => line.includes("catalogue reload refused")) ? true : undefined,
    );
    expect(await models()).toContain("gpt-4o-mini-reloaded");
  });
});
