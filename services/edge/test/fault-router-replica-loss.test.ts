import { setTimeout as sleep } from "node:timers/promises";
import {
  checkExactBilling,
  clearSimulatorRequests,
  type DemoAccount,
  eventually,
  openReservations,
  type SimulatedRequest,
  SteadyLoad,
  simulatorRequests,
  startTestStack,
  type TestStack,
} from "@gateway/stack";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RouterReplicas, startRouterReplicas } from "./router-replicas.js";

// Two routers behind one edge under steady load from the official SDK, which retries nothing
// here (`maxRetries: 0`): every failure edge lets through is counted.
let stack: TestStack;
let replicas: RouterReplicas;
let accounts: DemoAccount[];

beforeAll(async () => {
  stack = await startTestStack({ env: { USAGE_SPOOL_RETRY_MS: "500" } });
  replicas = await startRouterReplicas(stack);
  accounts = await Promise.all(
    [1, 2, 3].map((index) => stack.createAccount({ name: `replica-loss-${index}`, creditYuan: 10 })),
  );
});
afterAll(async () => {
  await replicas?.stop();
  await stack?.teardown();
});

// The load's message `load <index> …` as the simulator received it.
const loadIndexOf = (request: SimulatedRequest) => /\bload (\d+) /.exec(JSON.stringify(request.body))?.[1];

it("loses a router replica under load: calls that had reached no vendor are served by the other, only calls in its vendor calls fail, billing stays exact", async () => {
  await clearSimulatorRequests(stack.simulatorUrl);
  const sentAt = new Map<number, number>();
  // Each vendor call takes a second, so several are inside each router at any time.
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
  const lost = replicas.routers[1];
  // Frozen first, as a hung replica: the calls edge sends it meanwhile wait unread and have
  // reached no vendor when it is killed; its vendor calls made before have.
  const frozenAt = Date.now();
  lost.child.kill("SIGSTOP");
  await sleep(1_000);
  const killedAt = Date.now();
  lost.child.kill("SIGKILL");
  await servedAtLeast(load.servedCount + 20);
  // Replaced on its ports, as a Deployment does: the new process takes over its usage journal.
  await replicas.replaceSecond();
  await servedAtLeast(load.servedCount + 10);
  const report = await load.stop();

  const vendorCalls = await simulatorRequests(stack.simulatorUrl);
  const calledBefore = (index: number, at: number) =>
    vendorCalls.some((call) => loadIndexOf(call) === String(index) && Date.parse(call.at) < at);
  const failedIndexes = new Set(report.failed.map((failure) => failure.index));
  // Sent while the router was frozen and sent to a vendor only after the kill: the frozen
  // router held them, and edge sent them on to the other.
  const heldByFrozen = [...sentAt]
    .filter(([index, at]) => at >= frozenAt && at < killedAt && !calledBefore(index, killedAt))
    .map(([index]) => index);
  const failedAfterKill = report.failed.filter((failure) => sentAt.get(failure.index)! >= killedAt);
  // A request may fail only if it was under way at the kill and a vendor had been called for it before.
  const failedWithoutVendorCall = report.failed.filter((failure) => !calledBefore(failure.index, killedAt));
  const billing = await checkExactBilling(stack.databaseUrl, report, 10_000_000n);
  const open = (
    await Promise.all(accounts.map((account) => openReservations(stack.redisUrl, stack.namespace, account.account_id)))
  ).flatMap((held) => Object.keys(held));
  const served = new Set([...report.served.values()].flat());
  console.log(
    `router replica loss: ${load.servedCount} served, ${report.failed.length} failed (${report.failed
      .map((failure) => `${failure.status} ${failure.message}`)
      .join(
        "; ",
      )}), ${report.interrupted.length} streams broken, ${heldByFrozen.length} calls held by the frozen router served by the other ` +
      `(frozen ${killedAt - frozenAt} ms), ${billing.records} records, ${open.length} reservations left to lapse`,
  );
  expect(failedAfterKill).toEqual([]);
  expect(failedWithoutVendorCall).toEqual([]);
  expect(heldByFrozen.length).toBeGreaterThan(0);
  expect(heldByFrozen.filter((index) => failedIndexes.has(index))).toEqual([]);
  expect(billing).toMatchObject({ missing: [], doubled: [], billedErrors: [], balanceMismatches: [], unattributed: 0 });
  // A served request holds no reservation: one the lost router took for it was replaced and
  // settled by the router that served it. What is left belongs to failed calls, and lapses.
  expect(open.filter((requestId) => served.has(requestId))).toEqual([]);
}, 180_000);
