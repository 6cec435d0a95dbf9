import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scrapeMetrics, sumOf } from "./prometheus-text.js";
import { repoRoot } from "./repo-paths.js";
import { type Supervisor, superviseStack } from "./supervisor.js";
import { eventually } from "./test-resources.js";
import { startTestStack, type TestStack } from "./test-stack.js";

// Two replicas of router, ledger and video behind one edge, kept at two by the supervisor
// (`pnpm start` with GATEWAY_REPLICAS=2 runs the same).

let stack: TestStack;
let supervisor: Supervisor;
let client: OpenAI;
const said: string[] = [];

beforeAll(async () => {
  stack = await startTestStack({ replicas: 2 });
  supervisor = superviseStack(stack, { echo: false, say: (line) => said.push(line), firstDelayMs: 200 });
  const account = await stack.createAccount({ creditYuan: 100 });
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
}, 120_000);
afterAll(async () => {
  await supervisor?.stop();
  await stack?.teardown();
}, 60_000);

const chat = async () => {
  const completion = await client.chat.completions.create({
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: "Hello" }],
  });
  return completion.choices[0]?.message.content;
};

/** How many chat requests each router replica has served, from its own /metrics. */
const servedByRouter = () =>
  Promise.all(
    stack.replicaMetricsUrls.router.map(
      async (url) => sumOf(await scrapeMetrics(url), "gateway_router_requests_total") ?? 0,
    ),
  );

describe("a stack of two replicas", () => {
  it("runs two of router, ledger and video, each on ports of its own", () => {
    for (const name of ["router", "ledger", "video"] as const) {
      const replicas = stack.replicas[name];
      expect(replicas.map((replica) => replica.replica)).toEqual([0, 1]);
      expect(new Set(replicas.map((replica) => replica.child.pid)).size).toBe(2);
      expect(new Set(replicas.map((replica) => replica.ports.grpc)).size).toBe(2);
      expect(new Set(replicas.map((replica) => replica.ports.admin)).size).toBe(2);
    }
    // Each router and video replica journals its usage apart, as each pod has a volume of its own.
    for (const name of ["router", "video"] as const) {
      const [first, second] = stack.replicas[name];
      expect(first!.env.USAGE_SPOOL_DIR).toBeUndefined();
      expect(second!.env.USAGE_SPOOL_DIR).toBe(`${repoRoot}.gateway/spool/${stack.namespace}/${name}-1`);
    }
    expect(stack.replicas.edge).toHaveLength(1);
    expect(stack.processes.router).toBe(stack.replicas.router[0]);
    expect(stack.routerUrl.split(",")).toHaveLength(2);
  });

  it("spreads chat requests through the openai SDK over both routers", async () => {
    const before = await servedByRouter();
    for (let request = 0; request < 20; request++) expect(await chat()).toBeTruthy();
    const after = await servedByRouter();
    const served = after.map((count, replica) => count - before[replica]!);
    expect(served.reduce((sum, count) => sum + count, 0)).toBe(20);
    for (const count of served) expect(count).toBeGreaterThan(0);
  });

  it("replaces a router replica stopped with SIGTERM on its ports while every request succeeds", async () => {
    const stopped = stack.replicas.router[1]!;
    let replaced = false;
    const answers: (string | null | undefined)[] = [];
    // Two clients in a row each, for as long as the replacement takes and a little after.
    const load = Promise.all(
      [0, 1].map(async () => {
        while (!replaced) answers.push(await chat());
        for (let request = 0; request < 5; request++) answers.push(await chat());
      }),
    );
    await eventually(async () => (answers.length >= 4 ? true : undefined), 30_000, 20);
    stopped.child.kill("SIGTERM");
    const replacement = await eventually(
      async () => (stack.replicas.router[1] !== stopped ? stack.replicas.router[1] : undefined),
      60_000,
      50,
    );
    replaced = true;
    await load;
    expect(said).toContain("router-1 stopped (exit code 0); starting its replacement.");
    expect(said).toContain("router-1 is running again.");
    expect(replacement.child.pid).not.toBe(stopped.child.pid);
    expect(replacement.ports).toEqual(stopped.ports);
    expect(replacement.replica).toBe(1);
    expect(replacement.env.USAGE_SPOOL_DIR).toBe(stopped.env.USAGE_SPOOL_DIR);
    expect(answers.every(Boolean)).toBe(true);
    // Edge reaches the replacement too.
    const before = await servedByRouter();
    await eventually(
      async () => {
        await chat();
        const after = await servedByRouter();
        return after[1]! > before[1]! ? true : undefined;
      },
      30_000,
      50,
    );
  }, 120_000);
});
