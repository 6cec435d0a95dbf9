import {
  checkExactBilling,
  type DemoAccount,
  faultSuite,
  growthTrend,
  residentKilobytes,
  SteadyLoad,
  startTestStack,
  type TestStack,
} from "@gateway/stack";
import { afterAll, beforeAll, expect, it } from "vitest";

// The fault suite's soak: a fixed request rate for `faultSuite.soakMs` (90 s in the test
// command, 30 minutes with FAULT_SUITE_LONG=1), sampling every service's resident memory and
// edge's /healthz latency, which stands in for event-loop delay: an answer that does no I/O
// waits only for the loop.
let stack: TestStack;
let accounts: DemoAccount[];

beforeAll(async () => {
  stack = await startTestStack();
  accounts = await Promise.all(
    [1, 2, 3].map((index) => stack.createAccount({ name: `soak-${index}`, creditYuan: 50 })),
  );
});
afterAll(async () => {
  await stack?.teardown();
});

const services = ["edge", "router", "ledger", "video", "simulator"] as const;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function healthzMs(): Promise<number> {
  const started = performance.now();
  await (await fetch(`${stack.baseUrl.replace(/\/v1$/, "")}/healthz`)).arrayBuffer();
  return performance.now() - started;
}

it(
  "keeps every service's memory and edge's responsiveness flat under a steady load",
  async () => {
    const load = new SteadyLoad({ baseUrl: stack.baseUrl, accounts, ratePerSecond: 5, maxRetries: 2 });
    // Heaps and JIT settle first; the trend is judged on what follows.
    await wait(Math.max(10_000, faultSuite.soakMs / 10));
    const memory = Object.fromEntries(services.map((name) => [name, [] as number[]]));
    const latency: number[] = [];
    const sampleEveryMs = Math.max(1_000, faultSuite.soakMs / 120);
    const end = Date.now() + faultSuite.soakMs;
    while (Date.now() < end) {
      for (const name of services) {
        const kilobytes = residentKilobytes(stack.processes[name].child.pid!);
        if (kilobytes !== undefined) memory[name]!.push(kilobytes);
      }
      latency.push(await healthzMs());
      await wait(sampleEveryMs);
    }
    const report = await load.stop();

    expect(report.failed).toEqual([]);
    const trends = Object.fromEntries(services.map((name) => [name, growthTrend(memory[name]!, 1.5, 40_000)] as const));
    const responsiveness = growthTrend(latency, 3, 50);
    console.log(
      `soak ${faultSuite.soakMs / 1000} s at 5 req/s: ${load.servedCount} served, ${report.skipped} ticks skipped; ` +
        `RSS MB first→last third: ${services
          .map((name) => `${name} ${(trends[name]!.first / 1024).toFixed(0)}→${(trends[name]!.last / 1024).toFixed(0)}`)
          .join(", ")}; /healthz ms ${responsiveness.first.toFixed(1)}→${responsiveness.last.toFixed(1)}`,
    );
    for (const name of services) expect({ name, growing: trends[name]!.growing }).toEqual({ name, growing: false });
    expect(responsiveness.growing).toBe(false);
    const billing = await checkExactBilling(stack.databaseUrl, report, 50_000_000n);
    expect(billing).toMatchObject({ missing: [], doubled: [], billedErrors: [], balanceMismatches: [] });
  },
  faultSuite.soakMs * 1.5 + 180_000,
);
