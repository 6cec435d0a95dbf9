import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Catalogue, pricesAt } from "@gateway/catalogue";
import { repoRoot, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, eventually, signInWithGithub, signInWithOidc } from "./browser.js";

const run = randomBytes(4).toString("hex");
const FAILURES_PER_ACCOUNT = 5;
const FAILURES_PER_ADDRESS = 8;
const MAX_KEYS = 3;
const MAX_OPEN_TOPUPS = 2;
const adminLogin = `root-${run}`;
let stack: TestStack;
let consoleUrl: string;
const user = new Browser();
const admin = new Browser();
const stranger = new Browser();
let accountId: string;
// The catalogue the test stack's router runs with.
const shippedCatalogue = Catalogue.fromFile(join(repoRoot, "infra/catalogue/models.yaml"), {
  env: {},
  simulatorUrl: "http://127.0.0.1:1",
});
const shipped = shippedCatalogue.source;

beforeAll(async () => {
  stack = await startTestStack({
    console: true,
    serviceEnv: {
      console: {
        CONSOLE_ADMIN_IDENTITIES: `oidc:${adminLogin}`,
        CONSOLE_KEY_GROUPS: "default",
        // As behind the Kubernetes ingress: the proxy on loopback names each client's address.
        CONSOLE_TRUSTED_PROXIES: "loopback",
        CONSOLE_REDEEM_FAILURES_PER_ADDRESS: String(FAILURES_PER_ADDRESS),
      },
      ledger: {
        LEDGER_MAX_KEYS_PER_ACCOUNT: String(MAX_KEYS),
        LEDGER_MAX_OPEN_TOPUPS_PER_ACCOUNT: String(MAX_OPEN_TOPUPS),
      },
    },
  });
  consoleUrl = stack.consoleUrl!;
  accountId = (await signInWithGithub(user, consoleUrl, `user-${run}`)).session.account.id;
  await signInWithOidc(admin, consoleUrl, adminLogin);
  await signInWithGithub(stranger, consoleUrl, `stranger-${run}`);
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
});

describe("console account pages", () => {
  it("lets only a configured admin see accounts and credit one, with a reason", async () => {
    expect((await user.api(`${consoleUrl}/api/admin/accounts`)).status).toBe(403);
    const refused = await user.api(`${consoleUrl}/api/admin/accounts/${accountId}/credit`, "POST", {
      amountMicros: 5_000_000,
      reason: "self-service",
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("not_admin");

    expect((await admin.api(`${consoleUrl}/api/session`)).body.isAdmin).toBe(true);
    const accounts = await admin.api(`${consoleUrl}/api/admin/accounts?limit=500`);
    expect(accounts.body.accounts.map((account: { id: string }) => account.id)).toContain(accountId);
    const credit = await admin.api(`${consoleUrl}/api/admin/accounts/${accountId}/credit`, "POST", {
      amountMicros: 10_000_000,
      reason: "welcome credit",
    });
    expect(credit.status).toBe(200);
    expect(credit.body.balanceMicros).toBe(10_000_000);
    const zero = await admin.api(`${consoleUrl}/api/admin/accounts/${accountId}/credit`, "POST", {
      amountMicros: 0,
      reason: "nothing",
    });
    expect(zero.status).toBe(400);
  });

  it("creates a key in an allowed group, uses it through edge, and shows the request in usage, logs and statistics", async () => {
    expect((await user.api(`${consoleUrl}/api/groups`)).body.groups.map((g: { name: string }) => g.name)).toEqual([
      "default",
    ]);
    const premium = await user.api(`${consoleUrl}/api/keys`, "POST", { name: "p", group: "premium" });
    expect(premium.status).toBe(400);

    const created = await user.api(`${consoleUrl}/api/keys`, "POST", { name: "laptop", group: "default" });
    expect(created.status).toBe(201);
    expect(created.body.apiKey).toMatch(/^sk-/);
    expect(created.body.key).toMatchObject({ name: "laptop", group: "default", status: "active" });
    const listed = await user.api(`${consoleUrl}/api/keys`);
    expect(listed.body.keys).toEqual([
      expect.objectContaining({ id: created.body.key.id, prefix: created.body.key.prefix }),
    ]);

    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: created.body.apiKey, maxRetries: 0 });
    const { response } = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello from the console test" }] })
      .withResponse();
    const requestId = response.headers.get("x-request-id")!;

    const usage = await eventually(
      () => user.api(`${consoleUrl}/api/usage`),
      (answer) => answer.body.records.length > 0,
    );
    expect(usage.body.records[0]).toMatchObject({ requestId, keyId: created.body.key.id, model: "gpt-4o-mini" });
    expect(usage.body.records[0].costMicros).toBeGreaterThan(0);
    expect((await user.api(`${consoleUrl}/api/usage?status=error`)).body.records).toEqual([]);

    // A request log entry travels apart from its usage event: the list shows it once both are in.
    const logs = await eventually(
      () => user.api(`${consoleUrl}/api/logs`),
      (answer) => answer.body.logs.length > 0,
    );
    expect(logs.body.logs[0]).toMatchObject({ requestId, model: "gpt-4o-mini", outcome: "ok" });
    const log = await user.api(`${consoleUrl}/api/logs/${requestId}`);
    expect(log.body.capture).toBe("full");
    expect(log.body.request.messages[0].content).toBe("Hello from the console test");
    expect(log.body.answer).not.toBeNull();
    // Another account's session finds nothing of it.
    expect((await stranger.api(`${consoleUrl}/api/logs/${requestId}`)).status).toBe(404);
    expect((await stranger.api(`${consoleUrl}/api/usage`)).body.records).toEqual([]);
    expect((await stranger.api(`${consoleUrl}/api/keys/${created.body.key.id}`, "DELETE")).status).toBe(404);

    const statistics = await user.api(`${consoleUrl}/api/statistics`);
    expect(statistics.body.totals.requests).toBe(1);
    expect(statistics.body.byModel).toEqual([expect.objectContaining({ model: "gpt-4o-mini", requests: 1 })]);
    expect(statistics.body.byDay).toHaveLength(30);

    const overview = await user.api(`${consoleUrl}/api/overview`);
    expect(overview.body.days).toHaveLength(30);
    expect(overview.body.days.at(-1)).toMatchObject({ day: new Date().toISOString().slice(0, 10), requests: 1 });
    expect(overview.body.spendTodayMicros).toBe(usage.body.records[0].costMicros);
    expect(overview.body.balanceMicros).toBe(10_000_000 - usage.body.records[0].costMicros);

    const csv = await user.request(`${consoleUrl}/api/usage.csv`);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toMatch(/attachment/);
    const lines = (await csv.text()).trim().split("\r\n");
    expect(lines[0]).toMatch(/^createdAt,requestId,keyId,model/);
    expect(lines.slice(1)).toEqual([expect.stringContaining(requestId)]);
  });

  it("revokes a key, and edge refuses it within 2 s", async () => {
    const created = await user.api(`${consoleUrl}/api/keys`, "POST", { name: "short-lived", group: "default" });
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: created.body.apiKey, maxRetries: 0 });
    await client.models.list();
    const revoked = await user.api(`${consoleUrl}/api/keys/${created.body.key.id}`, "DELETE");
    expect(revoked.body.key.status).toBe("revoked");
    const revokedAt = Date.now();
    const refusal = await eventually(
      () =>
        client.models.list().then(
          () => undefined,
          (error: unknown) => error,
        ),
      (error) => error instanceof OpenAI.AuthenticationError,
      2_000,
    );
    expect(refusal).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(Date.now() - revokedAt).toBeLessThan(2_500);
  });

  it("reads and changes the account's request-log capture", async () => {
    const settings = await user.api(`${consoleUrl}/api/settings`);
    expect(settings.body).toMatchObject({ logCapture: "full", providers: [{ id: "github" }, { id: "oidc" }] });
    const changed = await user.api(`${consoleUrl}/api/settings`, "PUT", { logCapture: "metadata" });
    expect(changed.body.logCapture).toBe("metadata");
    expect((await user.api(`${consoleUrl}/api/settings`, "PUT", { logCapture: "everything" })).status).toBe(400);
  });

  it("shows only an admin the channels' health and the catalogue's groups and prices", async () => {
    for (const path of ["/api/admin/channels", "/api/admin/catalogue"]) {
      const refused = await user.api(`${consoleUrl}${path}`);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("not_admin");
    }
    const channels = (await admin.api(`${consoleUrl}/api/admin/channels`)).body.channels;
    expect(channels.map((channel: { name: string }) => channel.name).sort()).toEqual(
      Object.keys(shipped.channels).sort(),
    );
    for (const channel of channels) {
      expect(channel.vendor).toBe(shipped.channels[channel.name]!.vendor);
      // Development: every channel without a key is answered by the simulator, none is disabled.
      expect(channel).toMatchObject({ disabled: false, simulated: true });
      expect(["closed", "open", "half_open"]).toContain(channel.status);
    }
    expect(channels.some((channel: { models: number }) => channel.models > 0)).toBe(true);

    const catalogue = (await admin.api(`${consoleUrl}/api/admin/catalogue`)).body;
    expect(catalogue.groups.map((group: { name: string }) => group.name)).toEqual(Object.keys(shipped.groups));
    for (const group of catalogue.groups) {
      const limits = shipped.groups[group.name]!.limits ?? {};
      expect(group.description).toBe(shipped.groups[group.name]!.description);
      expect(group.limits.requestsPerMinute).toBe(limits.requests_per_minute);
      expect(group.limits.tokensPerMinute).toBe(limits.tokens_per_minute);
      expect(group.multiplierBasisPoints).toBe(shipped.groups[group.name]!.multiplier_basis_points);
    }
    expect(catalogue.models).toHaveLength(shipped.models.length);
    for (const model of shipped.models) {
      const described = catalogue.models.find((entry: { id: string }) => entry.id === model.id);
      // Its own prices or the dataset's, at a short prompt's band.
      const price = pricesAt(shippedCatalogue.priceOf(model.id)!, 0);
      expect(described.prices).toEqual({
        input: price.input,
        output: price.output,
        ...(price.cache_read !== undefined && { cacheRead: price.cache_read }),
        ...(price.cache_write !== undefined && { cacheWrite: price.cache_write }),
      });
      expect(described.groups).toEqual(model.groups);
      expect(described.contextWindow).toBe(model.context_window);
      expect(described.pricePerSecond).toBe(model.audio?.price_per_second ?? model.video?.price_per_second);
    }
  });

  it("shows anyone, signed in or not, each group's models at that group's prices", async () => {
    const response = await fetch(`${consoleUrl}/api/pricing`);
    expect(response.status).toBe(200);
    type Listed = { id: string; pricing: { multiplierBasisPoints: number; tokens: Record<string, string> } };
    const { groups } = (await response.json()) as {
      groups: { name: string; description: string; multiplierBasisPoints: number; models: Listed[] }[];
    };
    expect(groups.map((group) => group.name)).toEqual(Object.keys(shipped.groups));
    const servable = shipped.models.filter((model) => !model.retired);
    for (const group of groups) {
      expect(group.multiplierBasisPoints).toBe(shipped.groups[group.name]!.multiplier_basis_points);
      expect(group.models.map((model) => model.id).sort()).toEqual(
        servable
          .filter((model) => model.groups.includes(group.name))
          .map((model) => model.id)
          .sort(),
      );
      for (const model of group.models) expect(model.pricing.multiplierBasisPoints).toBe(group.multiplierBasisPoints);
    }
    const promptPrice = (group: string) =>
      groups.find((entry) => entry.name === group)!.models.find((model) => model.id === "gpt-4o-mini")!.pricing.tokens
        .prompt;
    const listPrice = pricesAt(shippedCatalogue.priceOf("gpt-4o-mini")!, 0).input;
    expect(promptPrice("default")).toBe(String(listPrice / 1e6));
    expect(promptPrice("premium")).toBe(String((listPrice * 1.5) / 1e6));
  });
});

describe("guessing codes from one client address behind a trusted proxy", () => {
  const guess = (browser: Browser, clientAddress: string) =>
    browser
      .api(
        `${consoleUrl}/api/topups/redeem`,
        "POST",
        { code: `GW-${randomBytes(12).toString("hex").toUpperCase()}` },
        {
          "x-forwarded-for": clientAddress,
        },
      )
      .then((answer) => answer.status);

  it("throttles wrong guesses per client address across accounts, and only that address", async () => {
    const sprayer = "203.0.113.7";
    let failures = 0;
    let status = 0;
    // Each account stays under its own limit; the address's counter is what stops them.
    for (let account = 0; status !== 429 && account < FAILURES_PER_ADDRESS; account += 1) {
      const browser = new Browser();
      await signInWithGithub(browser, consoleUrl, `spray${account}-${run}`);
      for (let attempt = 0; attempt < FAILURES_PER_ACCOUNT - 1 && status !== 429; attempt += 1) {
        status = await guess(browser, sprayer);
        if (status === 404) failures += 1;
      }
    }
    expect(status).toBe(429);
    expect(failures).toBe(FAILURES_PER_ADDRESS);
    // The same account is held back from the sprayer's address, not from its own.
    const neighbour = new Browser();
    await signInWithGithub(neighbour, consoleUrl, `neighbour-${run}`);
    expect(await guess(neighbour, sprayer)).toBe(429);
    expect(await guess(neighbour, "198.51.100.4")).toBe(404);
  });
});

describe("what one account may hold at once", () => {
  it("caps its keys and its top-up orders awaiting payment with a clear 429, freed by revoking", async () => {
    const holder = new Browser();
    await signInWithGithub(holder, consoleUrl, `holder-${run}`);
    const makeKey = (name: string) => holder.api(`${consoleUrl}/api/keys`, "POST", { name, group: "default" });
    const keys = [];
    for (let index = 0; index < MAX_KEYS; index += 1) keys.push(await makeKey(`k${index}`));
    for (const key of keys) expect(key.status).toBe(201);
    const refused = await makeKey("one too many");
    expect(refused).toMatchObject({ status: 429, body: { error: { code: "account_limit_reached" } } });
    expect(refused.body.error.message).toContain(`${MAX_KEYS} API keys`);
    expect((await holder.api(`${consoleUrl}/api/keys/${keys[0]!.body.key.id}`, "DELETE")).status).toBe(200);
    expect((await makeKey("in its place")).status).toBe(201);

    const order = (amountFen: number) =>
      holder.api(`${consoleUrl}/api/topups`, "POST", { provider: "alipay", amountFen });
    const open = [];
    for (let index = 0; index < MAX_OPEN_TOPUPS; index += 1) open.push(await order(300 + index));
    for (const placed of open) expect(placed.status).toBe(201);
    expect(await order(400)).toMatchObject({ status: 429, body: { error: { code: "account_limit_reached" } } });
    // The same amount and method again is the open order, not one more.
    expect((await order(300)).body.order.outTradeNo).toBe(open[0]!.body.order.outTradeNo);
  });
});
