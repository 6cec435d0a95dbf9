import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  backupChannel,
  backupChannelEnv,
  checkExactBilling,
  clearSimulatorRequests,
  type DemoAccount,
  eventually,
  queueSimulatorFault,
  SteadyLoad,
  simulatorRequests,
  startTestStack,
  type TestStack,
} from "@gateway/stack";
import { afterAll, beforeAll, expect, it } from "vitest";

// The fault suite's vendor part: routing.test.ts checks each rule on single requests; this
// checks that they hold under steady concurrent load while one channel misbehaves in every
// way at once. gpt-4o-mini gets a backup channel (see backupChannel).
const { mainKey, mainSeen, backupSeen } = backupChannel;

let stack: TestStack;
let accounts: DemoAccount[];
let directory: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "gw-vendor-faults-"));
  stack = await startTestStack({ env: backupChannelEnv(join(directory, "models.yaml")) });
  accounts = await Promise.all(
    [1, 2, 3].map((index) => stack.createAccount({ name: `vendor-${index}`, creditYuan: 10 })),
  );
});
afterAll(async () => {
  await stack?.teardown();
  rmSync(directory, { recursive: true, force: true });
});

const faultsLeft = async () =>
  ((await (await fetch(`${stack.simulatorUrl}/_sim/faults`)).json()) as { data: unknown[] }).data.length;

it("hides 429s, 5xx and time-outs of one channel behind failover and its circuit, and never retries a cut stream", async () => {
  await clearSimulatorRequests(stack.simulatorUrl);
  // Every tenth request is a stream the vendor cuts after two chunks.
  const cut = (index: number) => index % 10 === 1;
  const load = new SteadyLoad({
    baseUrl: stack.baseUrl,
    accounts,
    ratePerSecond: 4,
    // The gateway must absorb the channel's faults itself: the SDK does not retry.
    maxRetries: 0,
    content: (index) => `[marker ${index}] ${cut(index) ? "[sim:cut_after=2]" : ""}`,
  });
  for (const fault of [{ status: 429 }, { status: 500 }, { status: 503 }, { hang: true }]) {
    await queueSimulatorFault(stack.simulatorUrl, { ...fault, api_key: mainKey, count: 4 });
  }
  await eventually(async () => ((await faultsLeft()) === 0 ? true : undefined), 60_000, 200);
  const report = await load.stop();
  const upstream = await simulatorRequests(stack.simulatorUrl);

  const requestsOf = (index: number) =>
    upstream.filter((request) => JSON.stringify(request.body).includes(`[marker ${index}]`));
  const keysOf = (index: number) =>
    requestsOf(index).map((request) => (request.headers.authorization ?? "").replace(/^Bearer /, ""));
  const indices = Array.from({ length: load.servedCount + report.interrupted.length }, (_, index) => index);
  const failedOver = indices.filter((index) => {
    const keys = keysOf(index);
    return keys.length === 2 && keys[0] === mainSeen && keys[1] === backupSeen;
  });
  // The open circuit sends requests straight to the backup, without trying the main channel.
  const skippedMain = indices.filter((index) => {
    const keys = keysOf(index);
    return keys.length === 1 && keys[0] === backupSeen;
  });
  const cutStreams = indices.filter(cut);

  expect(report.failed).toEqual([]);
  expect(report.attempts.filter((attempt) => attempt.status !== 200)).toEqual([]);
  expect(failedOver.length).toBeGreaterThan(0);
  expect(skippedMain.length).toBeGreaterThan(0);
  // Cut after output reached the client: reported as a broken stream, never sent upstream again
  // (a failover before the stream began, from a queued fault, is allowed).
  expect(report.interrupted.length).toBe(cutStreams.length);
  for (const index of cutStreams) {
    expect(requestsOf(index).filter((request) => request.status === 200)).toHaveLength(1);
    expect(requestsOf(index).at(-1)!.status).toBe(200);
  }
  const billing = await checkExactBilling(stack.databaseUrl, report, 10_000_000n);
  expect(billing).toMatchObject({ missing: [], doubled: [], billedErrors: [], balanceMismatches: [] });
  expect(billing.unattributed).toBe(0);
  console.log(
    `vendor faults: ${load.servedCount} served, ${failedOver.length} failed over, ${skippedMain.length} skipped the open circuit, ` +
      `${cutStreams.length} cut streams sent once, ${billing.records} records`,
  );
}, 180_000);
