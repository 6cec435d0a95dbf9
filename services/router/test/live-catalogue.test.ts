import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { priceUsage } from "@gateway/billing";
import { Catalogue, CatalogueHolder } from "@gateway/catalogue";
import { CatalogueFollower, CatalogueStore, KeyCipher } from "@gateway/catalogue/store";
import { callUnary, createLogger, natsConnectOptions } from "@gateway/platform";
import { LedgerServiceClient } from "@gateway/proto/ledger/v1/ledger";
import { CatalogueAdminServiceClient } from "@gateway/proto/router/v1/catalogue_admin";
import {
  clearSimulatorRequests,
  eventually,
  queryRows,
  serviceEntry,
  serviceNode,
  simulatorRequests,
  startTestStack,
  type TestStack,
  testClientOptions,
  testServers,
  usageRecordOf,
} from "@gateway/stack";
import { credentials, status } from "@grpc/grpc-js";
import { connect, type NatsConnection } from "nats";
import OpenAI from "openai";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The invariant's bound: a change reaches every router within this.
const LIVE_WITHIN_MS = 2_000;
const run = promisify(execFile);
const logger = createLogger("test", "silent");
// Given to the stack's router, so the test's own follower opens the keys it stores.
const encryptionKey = randomBytes(32).toString("base64");

let stack: TestStack;
let client: OpenAI;
let apiKey: string;
let directory: string;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `pnpm gw ...` against the test stack. */
async function gw(...args: string[]): Promise<CliResult> {
  const env = {
    ...process.env,
    GATEWAY_ADMIN_URL: stack.adminUrl,
    GATEWAY_CATALOGUE_URL: stack.catalogueAdminUrl,
    GATEWAY_ADMIN_TOKEN: stack.adminToken,
  };
  try {
    const { stdout, stderr } = await run(serviceNode, [serviceEntry.cli, ...args], { env, cwd: directory });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function gwJson<T>(...args: string[]): Promise<T> {
  const result = await gw(...args, "--json");
  if (result.code !== 0) throw new Error(`gw ${args.join(" ")} failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

const listedModels = async () => {
  const ids: string[] = [];
  for await (const model of client.models.list()) ids.push(model.id);
  return ids;
};

/** Milliseconds from now until `probe` holds, polling every 50 ms. */
async function millisecondsUntil(probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  await eventually(async () => ((await probe()) ? true : undefined), 10_000, 50);
  return Date.now() - started;
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "gw-live-catalogue-"));
  stack = await startTestStack({ env: { CATALOGUE_ENCRYPTION_KEY: encryptionKey } });
  const account = await stack.createAccount({ group: "premium", creditYuan: 1000 });
  apiKey = account.api_key;
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });
});

afterAll(async () => {
  await stack?.teardown();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

describe("a live catalogue", () => {
  it("serves a model added through the CLI within 2 s", async () => {
    const added = await gwJson<{ revision: number; changed: unknown[] }>(
      "model",
      "add",
      "gpt-live-1",
      "--vendor",
      "openai",
      "--context-window",
      "128000",
      "--max-output",
      "16384",
      "--input",
      "1",
      "--output",
      "4",
      "--groups",
      "default,premium",
      "--capabilities",
      "tools",
      "--price-reason",
      "a house model the price dataset lacks",
    );
    expect(added.changed).toEqual([{ kind: "model", name: "gpt-live-1" }]);
    expect(await millisecondsUntil(async () => (await listedModels()).includes("gpt-live-1"))).toBeLessThan(
      LIVE_WITHIN_MS,
    );
    const answer = await client.chat.completions.create({
      model: "gpt-live-1",
      messages: [{ role: "user", content: "hello, new model" }],
    });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    const listed = await gwJson<{ data: Array<{ id: string }> }>("model", "list", "--group", "premium");
    expect(listed.data.map((model) => model.id)).toContain("gpt-live-1");
  });

  it("bills a price change and a group multiplier change made through the CLI within 2 s", async () => {
    await gwJson("model", "update", "gpt-4o-mini", "--input", "7", "--output", "11");
    await gwJson("group", "update", "premium", "--multiplier", "2.5");
    const costAsPriced = async () => {
      const answer = await client.chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "what does this cost?" }],
      });
      const record = await usageRecordOf(stack.databaseUrl, (answer as { _request_id?: string | null })._request_id!);
      const expected = priceUsage({
        promptTokens: record.prompt_tokens,
        completionTokens: record.completion_tokens,
        cachedTokens: record.cached_tokens,
        inputPriceMicros: 7_000_000,
        outputPriceMicros: 11_000_000,
        multiplierBasisPoints: 25_000,
      });
      return BigInt(record.cost_micros) === expected;
    };
    // Each try waits for its usage record too, so the bound holds the more easily for a later one.
    expect(await millisecondsUntil(costAsPriced)).toBeLessThan(LIVE_WITHIN_MS);
    const multipliers = await queryRows<{ multiplier_basis_points: number }>(
      stack.databaseUrl,
      "SELECT multiplier_basis_points FROM ledger.model_groups WHERE name = 'premium'",
    );
    expect(multipliers).toEqual([{ multiplier_basis_points: 25_000 }]);
    // Reservations use the multiplier edge learns from ResolveKey: ledger's cache of the key was dropped.
    const ledger = new LedgerServiceClient(
      `127.0.0.1:${stack.processes.ledger.ports.grpc}`,
      credentials.createInsecure(),
      testClientOptions("edge"),
    );
    try {
      const keyHash = createHash("sha256").update(apiKey).digest("hex");
      const resolved = await callUnary(ledger.resolveKey.bind(ledger), { keyHash }, 5_000);
      expect(resolved.multiplierBasisPoints).toBe(25_000);
    } finally {
      ledger.close();
    }
    const groups = await gwJson<{ data: Array<{ name: string; multiplier_basis_points: number }> }>("group", "list");
    expect(groups.data.find((group) => group.name === "premium")?.multiplier_basis_points).toBe(25_000);
    // The model list shows the prices in force, the dataset's where an entry sets none.
    const listing = await gw("model", "list");
    expect(listing.stdout).toMatch(/gpt-4o-mini\s+openai\s+\S+\s+7\s+11\s+\S+\s+\S+\s+entry/);
    expect(listing.stdout).toMatch(/claude-haiku-4-5\s+anthropic\s+\S+\s+7\.2\s+36\s+0\.72\s+9\s+dataset/);
    // `catalogue check` reads the live catalogue: the hand-set price now differs from the dataset's.
    const check = await gwJson<{ source: string; differences: Array<{ model: string; field: string; ours: number }> }>(
      "catalogue",
      "check",
    );
    expect(check.source).toMatch(/^the live catalogue \(revision \d+\)$/);
    expect(check.differences).toContainEqual(
      expect.objectContaining({ model: "gpt-4o-mini", field: "input", ours: 7_000_000 }),
    );
  });

  it("serves from a channel with two keys added through the CLI, keys encrypted and shown masked", async () => {
    const keys = ["sk-live-first-0123456789abcd", "sk-live-second-0123456789wxyz"];
    await gwJson(
      "channel",
      "add",
      "openai-live",
      "--vendor",
      "openai",
      "--base-url",
      `${stack.simulatorUrl}/v1`,
      "--key",
      keys[0]!,
      "--key",
      keys[1]!,
      "--models",
      "gpt-4o-mini",
    );
    await gwJson("channel", "disable", "openai-main", "--reason", "moved to openai-live");
    await clearSimulatorRequests(stack.simulatorUrl);
    const upstreamKey = async () => {
      await client.chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "which key?" }],
      });
      const seen = (await simulatorRequests(stack.simulatorUrl)).at(-1)?.headers.authorization;
      // The simulator records a key as its first and last four characters.
      return keys.some((key) => seen === `Bearer ${key.slice(0, 4)}...${key.slice(-4)}`);
    };
    expect(await millisecondsUntil(upstreamKey)).toBeLessThan(LIVE_WITHIN_MS);

    const channels = await gwJson<{ data: Array<{ name: string; api_keys?: string[]; disabled?: boolean }> }>(
      "channel",
      "list",
    );
    const live = channels.data.find((channel) => channel.name === "openai-live");
    expect(live?.api_keys).toEqual(["sk-…abcd", "sk-…wxyz"]);
    expect(channels.data.find((channel) => channel.name === "openai-main")?.disabled).toBe(true);
    const rows = await queryRows<{ sealed: Buffer; masked: string }>(
      stack.databaseUrl,
      "SELECT sealed, masked FROM catalogue.channel_keys WHERE channel = 'openai-live' ORDER BY position",
    );
    expect(rows.map((row) => row.masked)).toEqual(["sk-…abcd", "sk-…wxyz"]);
    const table = JSON.stringify(rows.map((row) => row.sealed.toString("latin1")));
    for (const key of keys) expect(table).not.toContain(key);
    const audit = await gwJson<{ data: Array<{ action: string; name: string; after: unknown }> }>(
      "catalogue",
      "history",
      "--limit",
      "500",
    );
    expect(audit.data.find((entry) => entry.action === "channel.add")).toMatchObject({
      name: "openai-live",
      after: { api_keys: ["sk-…abcd", "sk-…wxyz"] },
    });
    for (const key of keys) expect(JSON.stringify(audit)).not.toContain(key);
    await gwJson("channel", "enable", "openai-main");
  });

  it("disables for every router a channel whose every key the vendor refused, until an operator enables it", async () => {
    const key = "sk-refused-0123456789qrst";
    const refusal = (refused: boolean) =>
      fetch(`${stack.simulatorUrl}/_sim/keys/refused`, {
        method: refused ? "POST" : "DELETE",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ api_key: key, refusal: "invalid" }),
      });
    const base = ["--vendor", "openai", "--base-url", `${stack.simulatorUrl}/v1`, "--models", "gpt-live-1"];
    await gwJson("channel", "add", "openai-refused", ...base, "--key", key);
    await gwJson("channel", "disable", "openai-main", "--reason", "only openai-refused serves gpt-live-1");
    const ask = () =>
      client.chat.completions.create({ model: "gpt-live-1", messages: [{ role: "user", content: "refused?" }] });
    try {
      expect((await refusal(true)).ok).toBe(true);
      await expect(ask()).rejects.toThrow();
      const channel = async () =>
        (
          await gwJson<{ data: Array<{ name: string; disabled?: boolean; disabled_reason?: string }> }>(
            "channel",
            "list",
          )
        ).data.find((entry) => entry.name === "openai-refused");
      await eventually(async () => ((await channel())?.disabled ? true : undefined));
      expect((await channel())?.disabled_reason).toMatch(/^every key refused by the vendor \(\w+, HTTP 40\d\): /);
      const audit = await gwJson<{ data: Array<{ actor: string; action: string; name: string }> }>(
        "catalogue",
        "history",
      );
      expect(audit.data).toContainEqual(
        expect.objectContaining({ actor: "router", action: "channel.disable", name: "openai-refused" }),
      );

      // The vendor takes the key again and the operator enables the channel: it serves at once.
      await refusal(false);
      await gwJson("channel", "enable", "openai-refused");
      expect((await ask()).choices[0]?.message.content).toBeTruthy();
    } finally {
      await refusal(false);
      await gwJson("channel", "enable", "openai-main");
    }
  });

  it("refuses an invalid change whole with the reason, and the old catalogue stays", async () => {
    const before = await gwJson<{ revision: number; data: unknown[] }>("model", "list");
    const refused = await gw(
      "model",
      "add",
      "broken-model",
      "--vendor",
      "nobody",
      "--context-window",
      "1000",
      "--input",
      "1",
      "--output",
      "1",
      "--groups",
      "no-such-group",
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("HTTP 422");
    expect(refused.stderr).toContain("unknown vendor nobody");
    expect(refused.stderr).toContain("unknown group no-such-group");
    const after = await gwJson<{ revision: number; data: unknown[] }>("model", "list");
    expect(after).toEqual(before);
    expect(await listedModels()).not.toContain("broken-model");
  });

  it("round-trips an export through an import", async () => {
    const file = join(directory, "exported.yaml");
    expect((await gw("catalogue", "export", file)).code).toBe(0);
    const exported = readFileSync(file, "utf8");
    expect(exported).toContain("gpt-live-1");
    expect(exported).not.toContain("sk-live");
    const imported = await gwJson<{ changed: unknown[] }>("catalogue", "import", file);
    expect(imported.changed).toEqual([]);
    // Keys the file cannot carry stay stored for their channel.
    const rows = await queryRows(
      stack.databaseUrl,
      "SELECT masked FROM catalogue.channel_keys WHERE channel = 'openai-live'",
    );
    expect(rows).toHaveLength(2);
  });

  it("takes the console's changes over gRPC from the console only, refusing an invalid one with the reason", async () => {
    const address = `127.0.0.1:${stack.processes.router.ports.grpc}`;
    const asConsole = new CatalogueAdminServiceClient(
      address,
      credentials.createInsecure(),
      testClientOptions("console"),
    );
    const asEdge = new CatalogueAdminServiceClient(address, credentials.createInsecure(), testClientOptions("edge"));
    const change = (client: CatalogueAdminServiceClient, value: unknown) =>
      callUnary(
        client.changeCatalogue.bind(client),
        { actor: "ops@example.com", changeJson: JSON.stringify(value) },
        5_000,
      );
    try {
      const limits = { action: "group.update", name: "default", patch: { limits: { requests_per_minute: 1234 } } };
      await expect(change(asEdge, limits)).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
      const result = await change(asConsole, limits);
      expect(result.changed).toEqual([{ kind: "group", name: "default" }]);
      const invalid = { action: "group.update", name: "default", patch: { multiplier_basis_points: -1 } };
      await expect(change(asConsole, invalid)).rejects.toMatchObject({
        code: status.INVALID_ARGUMENT,
        details: expect.stringContaining("groups.default.multiplier_basis_points"),
      });
      const stored = await callUnary(asConsole.getCatalogue.bind(asConsole), {}, 5_000);
      expect(stored.revision).toBe(result.revision);
      expect(JSON.parse(stored.catalogueJson).groups.default.limits.requests_per_minute).toBe(1234);
      const { changes } = await callUnary(asConsole.listCatalogueChanges.bind(asConsole), { limit: 1 }, 5_000);
      expect(changes[0]).toMatchObject({
        actor: "ops@example.com",
        action: "group.update",
        kind: "group",
        name: "default",
      });
    } finally {
      asConsole.close();
      asEdge.close();
    }
  });

  it("reaches another router within 2 s through catalogue.changed, without waiting for the poll", async () => {
    const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
    let nats: NatsConnection | undefined;
    let follower: CatalogueFollower | undefined;
    try {
      // What every other router and video run: the store, followed on the namespace's subject.
      const store = new CatalogueStore(pool, new KeyCipher(encryptionKey));
      const stored = (await store.load())!;
      const sources = { env: {}, simulatorUrl: stack.simulatorUrl };
      const holder = new CatalogueHolder(Catalogue.fromData(stored.data, sources), logger);
      holder.revision = stored.revision;
      nats = await connect(natsConnectOptions({ NATS_URL: testServers.natsUrl }));
      follower = new CatalogueFollower(store, holder, sources, logger);
      follower.start(nats, stack.namespace, 600_000);
      const { revision } = await gwJson<{ revision: number }>("model", "update", "gpt-live-1", "--output", "5");
      const output = () => holder.current.all().find((model) => model.id === "gpt-live-1")?.price.output;
      expect(await millisecondsUntil(async () => output() === 5_000_000)).toBeLessThan(LIVE_WITHIN_MS);
      // Video follows the same store and message.
      const videoReloaded = async () =>
        stack.processes.video.output.some(
          (line) => line.includes("catalogue reloaded") && line.includes(`"revision":${revision}`),
        );
      expect(await millisecondsUntil(videoReloaded)).toBeLessThan(LIVE_WITHIN_MS);
    } finally {
      follower?.close();
      await nats?.close();
      await pool.end();
    }
  });
});
