import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import {
  checkExactBilling,
  clearSimulatorRequests,
  type DemoAccount,
  eventually,
  type LoadReport,
  openReservations,
  type ServiceProcess,
  type SimulatedRequest,
  SteadyLoad,
  type Supervisor,
  scrapeMetrics,
  simulatorRequests,
  startTestStack,
  sumOf,
  superviseStack,
  type TestStack,
} from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";

// Two replicas of router, ledger and video behind one edge under steady load from the official
// SDK, which retries nothing here (`maxRetries: 0`): every failure edge lets through is counted.
// Each vendor call takes a second, so several calls are inside each router at any time. The
// stack's supervisor replaces a replica that exits, on its ports, as a Deployment does.
let stack: TestStack;
let supervisor: Supervisor;

beforeAll(async () => {
  stack = await startTestStack({ replicas: 2, env: { USAGE_SPOOL_RETRY_MS: "500" } });
  supervisor = superviseStack(stack, { echo: false, say: () => undefined, firstDelayMs: 200 });
});
afterAll(async () => {
  await supervisor?.stop();
  await stack?.teardown();
});

/** Resolves once router replica `index` has served a call: edge reconnected to it (its back-off is capped at 2 s). */
const routerTakingCalls = (index: number) =>
  eventually(
    async () => {
      const samples = await scrapeMetrics(`http://127.0.0.1:${stack.replicas.router[index]!.ports.admin}/metrics`);
      return (sumOf(samples, "gateway_router_requests_total") ?? 0) > 0 ? true : undefined;
    },
    60_000,
    100,
  );

/** Resolves once the supervisor has replaced replica `index` of `name`, `gone` since. */
const replaced = (name: "router" | "ledger" | "video", index: number, gone: ServiceProcess) =>
  eventually(async () => (stack.replicas[name][index] !== gone ? true : undefined), 60_000, 100);

/** Steady load on accounts of its own (10 yuan each); `sentAt` learns when each request began. */
async function startLoad(name: string, sentAt = new Map<number, number>()) {
  const accounts = await Promise.all(
    [1, 2, 3].map((index) => stack.createAccount({ name: `${name}-${index}`, creditYuan: 10 })),
  );
  const load = new SteadyLoad({
    baseUrl: stack.baseUrl,
    accounts,
    ratePerSecond: 10,
    maxInFlight: 64,
    maxRetries: 0,
    content: (index) => {
      sentAt.set(index, Date.now());
      return "[sim:delay_ms=1000]";
    },
  });
  const servedAtLeast = (count: number) =>
    eventually(async () => (load.servedCount >= count ? true : undefined), 60_000, 100);
  await servedAtLeast(10);
  return { accounts, load, servedAtLeast };
}

/** Exact billing of the load's accounts, and the request ids still holding a cost reservation. */
async function billingOf(accounts: DemoAccount[], report: LoadReport) {
  const billing = await checkExactBilling(stack.databaseUrl, report, 10_000_000n);
  const held = await Promise.all(
    accounts.map((account) => openReservations(stack.redisUrl, stack.namespace, account.account_id)),
  );
  return { billing, reserved: held.flatMap((reservations) => Object.keys(reservations)) };
}

/** Stops the load and checks that no client saw an error, billing is exact and no reservation is left. */
async function expectNoClientError(label: string, accounts: DemoAccount[], load: SteadyLoad) {
  const report = await load.stop();
  const { billing, reserved } = await billingOf(accounts, report);
  const errors = report.attempts.filter((attempt) => attempt.status !== 200);
  console.log(
    `${label}: ${load.servedCount} served, ${report.failed.length} failed, ${errors.length} errors seen, ${billing.records} records`,
  );
  expect(report.failed).toEqual([]);
  expect(report.interrupted).toEqual([]);
  expect(errors).toEqual([]);
  expect(billing).toMatchObject({ missing: [], doubled: [], billedErrors: [], balanceMismatches: [], unattributed: 0 });
  expect(reserved).toEqual([]);
}

// The load's message `load <index> …` as the simulator received it.
const loadIndexOf = (request: SimulatedRequest) => /\bload (\d+) /.exec(JSON.stringify(request.body))?.[1];

it("loses a router replica under load: calls that had reached no vendor are served by the other, only calls in its vendor calls fail, billing stays exact", async () => {
  await clearSimulatorRequests(stack.simulatorUrl);
  const sentAt = new Map<number, number>();
  const { accounts, load, servedAtLeast } = await startLoad("replica-loss", sentAt);
  const lost = stack.replicas.router[1]!;
  // Frozen first, as a hung replica: the calls edge sends it meanwhile wait unread and have
  // reached no vendor when it is killed; its vendor calls made before have.
  const frozenAt = Date.now();
  lost.child.kill("SIGSTOP");
  await sleep(1_000);
  const killedAt = Date.now();
  lost.child.kill("SIGKILL");
  await servedAtLeast(load.servedCount + 20);
  // Its replacement takes over its usage journal.
  await replaced("router", 1, lost);
  await servedAtLeast(load.servedCount + 10);
  const report = await load.stop();

  const vendorCalls = await simulatorRequests(stack.simulatorUrl);
  const calledBefore = (index: number, at: number) =>
    vendorCalls.some((call) => loadIndexOf(call) === String(index) && Date.parse(call.at) < at);
  const failedIndexes = new Set(report.failed.map((failure) => failure.index));
  // Sent while the router was frozen and not at a vendor before the kill: the frozen router
  // held them, and each must have been served by the other.
  const heldByFrozen = [...sentAt]
    .filter(([index, at]) => at >= frozenAt && at < killedAt && !calledBefore(index, killedAt))
    .map(([index]) => index);
  const failedAfterKill = report.failed.filter((failure) => sentAt.get(failure.index)! >= killedAt);
  // A request may fail only if it was under way at the kill and a vendor had been called for it before.
  const failedWithoutVendorCall = report.failed.filter((failure) => !calledBefore(failure.index, killedAt));
  const { billing, reserved } = await billingOf(accounts, report);
  const served = new Set([...report.served.values()].flat());
  const failures = report.failed.map((failure) => `${failure.status} ${failure.message}`);
  console.log(
    `router replica loss: ${load.servedCount} served, ${report.failed.length} failed (${failures.join("; ")}), ` +
      `${report.interrupted.length} streams broken, ${heldByFrozen.length} calls held by the frozen router served ` +
      `by the other (frozen ${killedAt - frozenAt} ms), ${billing.records} records, ${reserved.length} reservations left to lapse`,
  );
  expect(failedAfterKill).toEqual([]);
  expect(failedWithoutVendorCall).toEqual([]);
  expect(heldByFrozen.length).toBeGreaterThan(0);
  expect(heldByFrozen.filter((index) => failedIndexes.has(index))).toEqual([]);
  expect(billing).toMatchObject({ missing: [], doubled: [], billedErrors: [], balanceMismatches: [], unattributed: 0 });
  // A served request holds no reservation: one the lost router took for it was replaced and
  // settled by the router that served it. What is left belongs to failed calls, and lapses.
  expect(reserved.filter((requestId) => served.has(requestId))).toEqual([]);
}, 180_000);

it("drains each router replica in turn under load (SIGTERM, then replaced): no request fails, billing stays exact", async () => {
  const { accounts, load, servedAtLeast } = await startLoad("replica-drain");
  const drains: { router: number; exitCode: number | null; drainMs: number }[] = [];
  for (const index of [1, 0]) {
    const draining = stack.replicas.router[index]!;
    const startedAt = Date.now();
    const exited = once(draining.child, "exit");
    // Calls in flight finish; new ones are refused (GOAWAY) and edge sends them to the other router.
    draining.child.kill("SIGTERM");
    const [exitCode] = (await exited) as [number | null];
    drains.push({ router: index, exitCode, drainMs: Date.now() - startedAt });
    await replaced("router", index, draining);
    // As a rollout waits for the new pod to be ready before it drains the next.
    await routerTakingCalls(index);
    await servedAtLeast(load.servedCount + 10);
  }
  await expectNoClientError(`router replica drains ${JSON.stringify(drains)}`, accounts, load);
  expect(drains.map((drain) => drain.exitCode)).toEqual([0, 0]);
}, 180_000);

it("loses a ledger and then a video replica under load (SIGKILL): no request fails, a new key is looked up through the other ledger, billing stays exact", async () => {
  const { accounts, load, servedAtLeast } = await startLoad("ledger-video-loss");
  const newKeysServed: string[] = [];
  for (const name of ["ledger", "video"] as const) {
    const lost = stack.replicas[name][1]!;
    lost.child.kill("SIGKILL");
    // An account made now: its key and balance are not cached anywhere, so edge and router ask ledger.
    const account = await stack.createAccount({ name: `after-${name}-loss`, creditYuan: 1 });
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
    const { request_id } = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }], max_tokens: 8 })
      .withResponse();
    newKeysServed.push(request_id!);
    await replaced(name, 1, lost);
    await servedAtLeast(load.servedCount + 10);
  }
  await expectNoClientError("ledger and video replica loss", accounts, load);
  expect(newKeysServed).toHaveLength(2);
}, 180_000);
