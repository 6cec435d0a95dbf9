import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { eventually, startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, signInWithGithub, signInWithOidc } from "./browser.js";

// The catalogue edited through the console's HTTP API on the whole stack: support reads it and
// is refused every change; an admin's change goes through router's CatalogueAdminService with
// the admin as actor and reaches /v1/models within 2 s.

const LIVE_WITHIN_MS = 2_000;
const run = randomBytes(4).toString("hex");
const adminLogin = `cat-admin-${run}`;
let stack: TestStack;
let consoleUrl: string;
let apiKey: string;
const admin = new Browser();
const support = new Browser();
const customer = new Browser();

beforeAll(async () => {
  stack = await startTestStack({
    console: true,
    serviceEnv: { console: { CONSOLE_ADMIN_IDENTITIES: `oidc:${adminLogin}` } },
  });
  consoleUrl = stack.consoleUrl!;
  apiKey = (await stack.createAccount({ group: "default" })).api_key;
  await signInWithOidc(admin, consoleUrl, adminLogin);
  await signInWithGithub(customer, consoleUrl, `cat-customer-${run}`);
  const identity = (await signInWithGithub(support, consoleUrl, `cat-support-${run}`)).session.identities[0];
  const grantee = `${identity.provider}:${identity.subject}`;
  expect((await api(admin, "/admin/roles", "POST", { grantee, role: "support" })).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
});

const api = (browser: Browser, path: string, method = "GET", body?: unknown) =>
  browser.api(`${consoleUrl}/api${path}`, method, body);

/** gpt-4o-mini's input price on /v1/models for the default group, yuan per million tokens. */
async function listedInputPrice(): Promise<string> {
  const response = await fetch(`${stack.baseUrl}/models/gpt-4o-mini`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return ((await response.json()) as { pricing: { prompt: string } }).pricing.prompt;
}

describe("the catalogue in the console", { timeout: 120_000 }, () => {
  it("lets support read the catalogue and its history but refuses support's changes and channel tests with 403", async () => {
    const stored = await api(support, "/admin/catalogue/stored");
    expect(stored.status).toBe(200);
    expect(stored.body.catalogue.models.map((model: { id: string }) => model.id)).toContain("gpt-4o-mini");
    expect((await api(support, "/admin/catalogue/history")).status).toBe(200);
    const change = { action: "group.add", name: "support-made", entry: { description: "no" } };
    expect(await api(support, "/admin/catalogue/changes", "POST", change)).toMatchObject({
      status: 403,
      body: { error: { code: "admin_only" } },
    });
    expect((await api(support, "/admin/channels/openai-main/test", "POST", {})).status).toBe(403);
    expect((await api(customer, "/admin/catalogue/stored")).status).toBe(403);
    expect((await api(customer, "/admin/catalogue/changes", "POST", change)).status).toBe(403);
  });

  it("adds a channel with two keys (masked from then on), tests each key, and removes one by its mask", async () => {
    const added = await api(admin, "/admin/catalogue/changes", "POST", {
      action: "channel.add",
      name: "openai-console",
      entry: {
        vendor: "openai",
        base_url: `${stack.simulatorUrl}/v1`,
        api_keys: ["sk-console-first-1111", "sk-console-second-2222"],
        models: ["gpt-4o-mini"],
        priority: 5,
        weight: 1,
      },
    });
    expect(added).toMatchObject({ status: 200, body: { changed: [{ kind: "channel", name: "openai-console" }] } });
    const stored = await api(support, "/admin/catalogue/stored");
    expect(stored.body.catalogue.channels["openai-console"].api_keys).toEqual(["sk-…1111", "sk-…2222"]);
    expect(JSON.stringify(stored.body)).not.toContain("sk-console-first");

    const tested = await api(admin, "/admin/channels/openai-console/test", "POST", { model: "gpt-4o-mini" });
    expect(tested.status).toBe(200);
    expect(tested.body.keys).toHaveLength(2);
    for (const key of tested.body.keys) expect(key).toMatchObject({ ok: true, status: 200 });

    const removed = await api(admin, "/admin/catalogue/changes", "POST", {
      action: "channel.keys",
      name: "openai-console",
      remove: ["sk-…1111"],
    });
    expect(removed.status).toBe(200);
    expect((await api(admin, "/admin/catalogue/stored")).body.catalogue.channels["openai-console"].api_keys).toEqual([
      "sk-…2222",
    ]);
  });

  it("sends a channel's stored key only to the address it was given for: a move needs the keys again or a confirmation", async () => {
    const seen: (string | undefined)[] = [];
    const elsewhere = createServer((request, response) => {
      seen.push(request.headers.authorization);
      response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    const newAddress = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/v1`;
    try {
      const moved = await api(admin, "/admin/catalogue/changes", "POST", {
        action: "channel.update",
        name: "openai-console",
        patch: { base_url: newAddress },
      });
      expect(moved).toMatchObject({ status: 422, body: { error: { code: "catalogue_refused" } } });
      expect(moved.body.error.problems[0]).toMatch(
        /openai-console: moving it from openai at .* to openai at 127\.0\.0\.1/,
      );
      const tested = await api(admin, "/admin/channels/openai-console/test", "POST", { model: "gpt-4o-mini" });
      expect(tested.body.keys).toEqual([expect.objectContaining({ ok: true })]);
      expect(seen).toEqual([]);

      const confirmed = await api(admin, "/admin/catalogue/changes", "POST", {
        action: "channel.update",
        name: "openai-console",
        patch: { base_url: newAddress },
        move_keys: true,
      });
      expect(confirmed.status).toBe(200);
      // A test whose every key fails there reads as failing health, not healthy.
      const failed = await eventually(async () => {
        const answer = await api(admin, "/admin/channels/openai-console/test", "POST", { model: "gpt-4o-mini" });
        return answer.body.keys?.[0]?.ok === false ? answer : undefined;
      });
      expect(failed.body.keys).toEqual([expect.objectContaining({ ok: false, status: 500 })]);
      const health = (await api(admin, "/admin/channels")).body.channels as { name: string }[];
      expect(health.find((channel) => channel.name === "openai-console")).toMatchObject({
        status: "failing",
        consecutiveFailures: 1,
      });
      const history = await api(admin, "/admin/catalogue/history");
      expect(history.body.changes[0]).toMatchObject({
        action: "channel.update+move_keys",
        actor: expect.stringContaining(adminLogin),
        before: expect.objectContaining({ base_url: `${stack.simulatorUrl}/v1` }),
        after: expect.objectContaining({ base_url: newAddress }),
      });
    } finally {
      elsewhere.close();
    }
  });

  it("refuses an invalid change with every reason router names", async () => {
    const refused = await api(admin, "/admin/catalogue/changes", "POST", {
      action: "channel.add",
      name: "broken",
      entry: { vendor: "openai", weight: 0, priority: -1 },
    });
    expect(refused).toMatchObject({ status: 422, body: { error: { code: "catalogue_refused" } } });
    expect(refused.body.error.problems).toEqual([
      expect.stringContaining("channels.broken.priority"),
      expect.stringContaining("channels.broken.weight"),
    ]);
  });

  it("puts an admin's price change on /v1/models within 2 s and records the admin in the catalogue history", async () => {
    const before = await listedInputPrice();
    const changed = await api(admin, "/admin/catalogue/changes", "POST", {
      action: "model.update",
      name: "gpt-4o-mini",
      patch: { price: { input: 2_500_000 }, price_reason: "console test" },
    });
    expect(changed.status).toBe(200);
    const started = Date.now();
    await eventually(async () => (Number(await listedInputPrice()) === 2.5 ? true : undefined), 10_000, 50);
    expect(Date.now() - started).toBeLessThan(LIVE_WITHIN_MS);
    expect(Number(before)).not.toBe(2.5);

    const history = await api(support, "/admin/catalogue/history?limit=10");
    expect(history.body.changes[0]).toMatchObject({
      actor: `oidc:${adminLogin}`,
      action: "model.update",
      kind: "model",
      name: "gpt-4o-mini",
      after: expect.objectContaining({ price_reason: "console test" }),
    });
  });
});
