import { once } from "node:events";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  accountUsageRecords,
  balanceMicrosOf,
  eventually,
  openReservations,
  repoRoot,
  type Supervisor,
  startTestStack,
  superviseStack,
  TestNats,
  type TestStack,
} from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";

// NATS of the test's own: stopped, it holds router's publish in flight (JetStream waits for
// its acknowledgement), so the answered request's event is in router's journal alone when
// router is SIGKILLed. The supervisor starts router again, as Kubernetes would.
let nats: TestNats;
let stack: TestStack;
let supervisor: Supervisor;
const said: string[] = [];

beforeAll(async () => {
  nats = await TestNats.start();
  stack = await startTestStack({ natsUrl: nats.url, env: { USAGE_SPOOL_RETRY_MS: "500" } });
  supervisor = superviseStack(stack, { echo: false, say: (line) => said.push(line), firstDelayMs: 200 });
});
afterAll(async () => {
  await supervisor?.stop();
  await stack?.teardown();
  await nats?.remove();
});

const spoolDirectory = () => join(repoRoot, ".gateway/spool", stack.namespace, "router");
const spoolFile = (prefix: string) =>
  readdirSync(spoolDirectory())
    .filter((name) => name.startsWith(prefix))
    .map((name) => readFileSync(join(spoolDirectory(), name), "utf8"))
    .join("");

const killRouter = async () => {
  const router = stack.processes.router;
  router.child.kill("SIGKILL");
  await once(router.child, "exit");
  return router;
};
const usageRecords = (accountId: string) => accountUsageRecords(stack.databaseUrl, accountId);
const balanceOf = (accountId: string) => balanceMicrosOf(stack.databaseUrl, accountId);
const routerRestarted = (killed: TestStack["processes"]["router"]) =>
  eventually(async () => (stack.processes.router !== killed ? true : undefined), 60_000, 100);

it("bills exactly once a request whose router was killed after answering and before publishing its usage", async () => {
  const account = await stack.createAccount({ creditYuan: 10 });
  const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  await nats.stop();
  const answer = await client.chat.completions.create({
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: "bill me once" }],
  });
  const requestId = answer._request_id!;

  // The event is journaled, not yet in JetStream or the spool.
  const journaled = spoolFile("journal-");
  expect(journaled).toContain(`"msgID":"${requestId}"`);
  expect(spoolFile("usage")).not.toContain(requestId);
  const killed = await killRouter();
  await nats.resume();
  await routerRestarted(killed);

  const records = () => usageRecords(account.account_id);
  const billed = await eventually(async () => {
    const rows = await records();
    return rows.length > 0 ? rows : undefined;
  }, 30_000);
  expect(billed.map((row) => row.request_id)).toEqual([requestId]);
  const balance = () => balanceOf(account.account_id);
  const cost = BigInt(billed[0]!.cost_micros);
  expect(cost).toBeGreaterThan(0n);
  expect(10_000_000n - BigInt(await balance())).toBe(cost);

  // The same journal recovered again (a kill before its file was deleted) charges nothing more.
  const killedAgain = await killRouter();
  writeFileSync(join(spoolDirectory(), "journal-0-replayed-1.jsonl"), journaled);
  await routerRestarted(killedAgain);
  await eventually(async () =>
    spoolFile("journal-0-replayed") === "" && spoolFile("usage") === "" ? true : undefined,
  );
  // Longer than ledger's batching, for a copy that got through to be recorded.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect((await records()).map((row) => row.request_id)).toEqual([requestId]);
  expect(10_000_000n - BigInt(await balance())).toBe(cost);
  expect(said.filter((line) => line.endsWith("is running again."))).toHaveLength(2);
}, 120_000);

it("bills nothing for a request whose router was killed after journaling its usage and before its answer left", async () => {
  const account = await stack.createAccount({ creditYuan: 10 });
  const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  // An answer larger than HTTP/2's flow-control window: with edge stopped, router cannot hand
  // all of it over, so the kill lands between journaling the usage and the answer leaving.
  // NATS is up: the event must wait for its answer, not go to JetStream 10 ms after the journal.
  const asked = client.chat.completions
    .create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "[sim:delay_ms=2000][sim:tokens=30000] a long answer" }],
    })
    .then(
      () => "answered",
      (error: unknown) => error,
    );
  const held = await eventually(async () => {
    const open = await openReservations(stack.redisUrl, stack.namespace, account.account_id);
    return Object.keys(open).length > 0 ? open : undefined;
  }, 10_000);
  const edge = stack.processes.edge.child;
  edge.kill("SIGSTOP");
  try {
    await eventually(
      async () => (spoolFile("journal-").includes('"awaitingDelivery":true') ? true : undefined),
      10_000,
    );
    expect(spoolFile("journal-")).not.toContain('"delivered"');
    const killed = await killRouter();
    edge.kill("SIGCONT");
    const outcome = await asked;
    expect(outcome).toBeInstanceOf(OpenAI.APIError);
    expect((outcome as InstanceType<typeof OpenAI.APIError>).status).toBeGreaterThanOrEqual(500);
    await routerRestarted(killed);
  } finally {
    edge.kill("SIGCONT");
  }

  // Released at once by the restarted router, long before the reservation's 20-minute expiry.
  await eventually(
    async () =>
      Object.keys(await openReservations(stack.redisUrl, stack.namespace, account.account_id)).length === 0
        ? true
        : undefined,
    30_000,
  );
  expect(Object.keys(held)).toHaveLength(1);
  await eventually(async () => (spoolFile("journal-") === "" && spoolFile("usage") === "" ? true : undefined));
  // Longer than ledger's batching, for an event that got through to be recorded.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(await usageRecords(account.account_id)).toEqual([]);
  expect(await balanceOf(account.account_id)).toBe(10_000_000n);
  // The operator bears the vendor's charge for it: counted.
  const metrics = await (await fetch(stack.metricsUrls.router)).text();
  expect(metrics).toMatch(/gateway_usage_undelivered_total\{[^}]*model="gpt-4o-mini"[^}]*\} 1\b/);
}, 120_000);
