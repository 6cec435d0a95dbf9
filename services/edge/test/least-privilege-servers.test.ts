import { randomBytes } from "node:crypto";
import type { Redis } from "@gateway/platform";
import {
  connectTestRedis,
  eventually,
  natsAuthorizationBlock,
  queryRows,
  redisAclRules,
  startTestStack,
  TestNats,
  type TestStack,
  testServers,
  uniqueNamespace,
  usageRecordOf,
} from "@gateway/stack";
import { connect, type NatsConnection } from "nats";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The stack runs against a NATS whose users are the documented per-service ones, and a Redis
// user that may touch only this run's namespace: every request still works and is billed.
const namespace = uniqueNamespace();
const password = () => randomBytes(12).toString("hex");
const passwords = { edge: password(), router: password(), ledger: password(), video: password() };
const operator = { user: "operator", password: password() };
const redisUser = `gw-test-${namespace}`;
const redisPassword = password();
let redisAdmin: Redis;

let nats: TestNats;
let stack: TestStack;

function withCredentials(url: string, user: string, secret: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = secret;
  return parsed.toString().replace(/\/$/, "");
}

beforeAll(async () => {
  nats = await TestNats.start({
    config: natsAuthorizationBlock(namespace, passwords, [operator]),
    probe: { user: operator.user, pass: operator.password },
  });
  redisAdmin = await connectTestRedis();
  await redisAdmin.sendCommand(["ACL", "SETUSER", redisUser, ...redisAclRules(namespace, redisPassword)]);
  stack = await startTestStack({
    namespace,
    // Only the test's teardown uses the operator; every service below connects as its own user.
    natsUrl: withCredentials(nats.url, operator.user, operator.password),
    redisUrl: withCredentials(testServers.redisUrl, redisUser, redisPassword),
    serviceEnv: {
      // Both ways of giving credentials: in the URL, and as NATS_USER/NATS_PASSWORD.
      edge: { NATS_URL: withCredentials(nats.url, "edge", passwords.edge) },
      router: { NATS_URL: nats.url, NATS_USER: "router", NATS_PASSWORD: passwords.router },
      ledger: { NATS_URL: withCredentials(nats.url, "ledger", passwords.ledger) },
      video: { NATS_URL: nats.url, NATS_USER: "video", NATS_PASSWORD: passwords.video },
    },
  });
}, 120_000);

afterAll(async () => {
  await stack?.teardown();
  await nats?.remove();
  await redisAdmin.sendCommand(["ACL", "DELUSER", redisUser]);
  redisAdmin.destroy();
});

describe("with per-service NATS users and a namespace-bound Redis user", () => {
  it("serves and bills a request, and revokes a key everywhere", async () => {
    const account = await stack.createAccount({ creditYuan: 10 });
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
    const answer = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello" }] })
      .withResponse();
    const record = await usageRecordOf(stack.databaseUrl, answer.response.headers.get("x-request-id")!);
    expect(BigInt(record.cost_micros)).toBeGreaterThan(0n);

    // Ledger announces the revocation as its user; edge hears it as its own.
    const revoke = await fetch(`${stack.adminUrl}/admin/keys/${account.key_id}/revoke`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.adminToken}` },
    });
    expect(revoke.status).toBe(200);
    await expect(client.models.list()).rejects.toMatchObject({ status: 401 });
  }, 60_000);

  it("carries a request's log entry, on its own stream, from router to ledger as their own NATS users", async () => {
    const account = await stack.createAccount({ creditYuan: 10 });
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Log me" }],
    });
    const log = await eventually(
      async () =>
        (
          await queryRows<{ request_body: string }>(
            stack.databaseUrl,
            "SELECT request_body FROM ledger.request_logs WHERE request_id = $1",
            [completion._request_id!],
          )
        )[0],
    );
    expect(JSON.parse(log.request_body)).toEqual({ messages: [{ role: "user", content: "Log me" }] });
  }, 60_000);

  it("carries a catalogue change from router to ledger as their own NATS users", async () => {
    const change = await fetch(`${stack.catalogueAdminUrl}/catalogue/changes`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "group.update", name: "default", patch: { multiplier_basis_points: 12_500 } }),
    });
    expect(change.status).toBe(200);
    await eventually(async () => {
      const [group] = await queryRows<{ multiplier_basis_points: number }>(
        stack.databaseUrl,
        "SELECT multiplier_basis_points FROM ledger.model_groups WHERE name = 'default'",
      );
      return group?.multiplier_basis_points === 12_500 ? true : undefined;
    });
  });

  it("is ready in development with every channel enabled", async () => {
    const response = await fetch(new URL("/readyz", stack.baseUrl));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: "ready",
      dependencies: { router: "ok", ledger: "ok", nats: "ok" },
      channels: { disabled: [], models_without_channels: [] },
    });
  });

  it("never refused the services a Redis command", async () => {
    const log = (await redisAdmin.sendCommand(["ACL", "LOG", "128"])) as unknown[][];
    const entries = log.map((entry) => Object.fromEntries(pairs(entry)));
    expect(entries.filter((entry) => entry.username === redisUser)).toEqual([]);
  });

  it("keeps the Redis user inside its namespace", async () => {
    const confined = await connectTestRedis(withCredentials(testServers.redisUrl, redisUser, redisPassword));
    try {
      await expect(confined.get(`${namespace}:probe`)).resolves.toBeNull();
      await expect(confined.get("gw:probe")).rejects.toThrow(/NOPERM/);
      await expect(confined.sendCommand(["KEYS", "*"])).rejects.toThrow(/NOPERM/);
    } finally {
      confined.destroy();
    }
  });

  it("lets edge's NATS user neither publish usage events nor read them", async () => {
    const asEdge: NatsConnection = await connect({ servers: nats.url, user: "edge", pass: passwords.edge });
    const asOperator = await connect({ servers: nats.url, user: operator.user, pass: operator.password });
    try {
      const manager = await asOperator.jetstreamManager();
      const stream = `${namespace.toUpperCase()}_USAGE`;
      const before = (await manager.streams.info(stream)).state.messages;
      await expect(asEdge.jetstream().publish(`${namespace}.usage.openai`, new Uint8Array(8))).rejects.toThrow(
        /permission/i,
      );
      const refused = new Promise<unknown>((resolve) => {
        asEdge.subscribe(`${namespace}.usage.>`, { callback: (error) => resolve(error) });
      });
      expect(String(await refused)).toMatch(/permission/i);
      expect((await manager.streams.info(stream)).state.messages).toBe(before);
    } finally {
      await asEdge.close();
      await asOperator.close();
    }
  });
});

function* pairs(entry: unknown[]): Generator<[string, unknown]> {
  for (let index = 0; index + 1 < entry.length; index += 2) yield [String(entry[index]), entry[index + 1]];
}
