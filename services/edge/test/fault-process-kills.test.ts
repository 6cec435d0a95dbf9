import {
  checkExactBilling,
  type DemoAccount,
  eventually,
  isRetryable,
  SteadyLoad,
  type Supervisor,
  startTestStack,
  superviseStack,
  type TestStack,
} from "@gateway/stack";
import { afterAll, beforeAll, expect, it } from "vitest";

// The fault suite: every service is SIGKILLed in turn under steady SDK load, and the stack's
// supervisor (the same one `pnpm start` runs) starts it again on its ports.
let stack: TestStack;
let supervisor: Supervisor;
let accounts: DemoAccount[];
const said: string[] = [];

beforeAll(async () => {
  stack = await startTestStack({ env: { USAGE_SPOOL_RETRY_MS: "500" } });
  supervisor = superviseStack(stack, { echo: false, say: (line) => said.push(line), firstDelayMs: 200 });
  accounts = await Promise.all(
    [1, 2, 3].map((index) => stack.createAccount({ name: `kills-${index}`, creditYuan: 10 })),
  );
});
afterAll(async () => {
  await supervisor?.stop();
  await stack?.teardown();
});

const services = ["router", "ledger", "video", "edge"] as const;

it("serves through SIGKILLs of router, ledger, video and edge with only retryable errors, billing each answer once", async () => {
  const load = new SteadyLoad({ baseUrl: stack.baseUrl, accounts, ratePerSecond: 4 });
  const servedAtLeast = (count: number) =>
    eventually(async () => (load.servedCount >= count ? true : undefined), 90_000, 100);
  const killedAt: number[] = [];
  for (const name of services) {
    await servedAtLeast(load.servedCount + 6);
    const killed = stack.processes[name];
    killedAt.push(Date.now());
    killed.child.kill("SIGKILL");
    await eventually(async () => (stack.processes[name] !== killed ? true : undefined), 60_000, 100);
  }
  await servedAtLeast(load.servedCount + 8);
  const report = await load.stop();

  expect(said.filter((line) => line.endsWith("is running again."))).toHaveLength(services.length);
  // A client whose retries ran out before the service was back saw a retryable error, nothing else.
  expect(report.failed.filter((failure) => !isRetryable(failure))).toEqual([]);
  const refused = report.attempts.filter((attempt) => attempt.status !== 200);
  expect(refused.filter((attempt) => !isRetryable(attempt))).toEqual([]);
  const billing = await checkExactBilling(stack.databaseUrl, report, 10_000_000n);
  // Each kill's window opens a second early: answers that left just before it count as its own.
  const windows = services.map((name, index) => {
    const inWindow = (at: number) =>
      at >= killedAt[index]! - 1_000 && at < (killedAt[index + 1] ?? Number.POSITIVE_INFINITY) - 1_000;
    const errors = refused.filter((attempt) => inWindow(attempt.at));
    const gapMs = errors.length > 0 ? Math.max(0, errors.at(-1)!.at - killedAt[index]!) : 0;
    const ofWindow = (ids: string[]) =>
      ids.filter((id) => report.attempts.some((attempt) => attempt.requestId === id && inWindow(attempt.at)));
    const billedErrors = ofWindow(billing.billedErrors).map((id) => ({
      requestId: id,
      answeredMsAfterKill: report.attempts
        .filter((attempt) => attempt.requestId === id)
        .map((attempt) => attempt.at - killedAt[index]!),
    }));
    return {
      name,
      errors: errors.length,
      gapMs,
      failed: report.failed.filter((f) => inWindow(f.at)).length,
      missing: ofWindow(billing.missing),
      billedErrors,
    };
  });
  console.log(`process kills: ${JSON.stringify(windows)}; ${load.servedCount} served, ${billing.records} records`);
  // Router journals each usage event before its answer leaves (usage-journal.ts), so no kill
  // loses one; the journal also records whether the answer left, so one killed before its
  // answer reached edge charges nothing (its client got a 503): usage records are exactly
  // the requests served.
  for (const window of windows) expect(window).toMatchObject({ missing: [], billedErrors: [] });
  expect(billing.missing).toEqual([]);
  expect(billing.billedErrors).toEqual([]);
  expect(billing).toMatchObject({ doubled: [], balanceMismatches: [] });
  const connectionErrors = report.attempts.filter((attempt) => attempt.status === "connection-error").length;
  expect(billing.unattributed).toBeLessThanOrEqual(connectionErrors);
}, 300_000);
