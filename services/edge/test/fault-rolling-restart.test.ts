import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import {
  accountUsageRecords,
  balanceMicrosOf,
  checkExactBilling,
  type DemoAccount,
  eventually,
  openReservations,
  repoRoot,
  type ServiceProcess,
  SteadyLoad,
  type Supervisor,
  startTestStack,
  superviseStack,
  type TestStack,
} from "@gateway/stack";
import { afterAll, beforeAll, expect, it } from "vitest";
import { VideoClients } from "./video-clients.js";
import { quickVideoEnv, simulatedVideoJobs, videoApi } from "./video-fixtures.js";

// A rolling restart of two replicas each of router, ledger, video and the console under steady
// load, as a Kubernetes rollout with maxUnavailable 0 goes: one replica at a time gets SIGTERM,
// drains and exits, and the next waits until its replacement has been ready for the
// manifests' minReadySeconds. Edge runs once locally
// (its replicas sit behind a load balancer in Kubernetes), so it is not restarted here. The SDK
// retries nothing (`maxRetries: 0`): every failure edge lets through is counted.
let stack: TestStack;
let supervisor: Supervisor;

beforeAll(async () => {
  stack = await startTestStack({
    replicas: 2,
    console: true,
    env: {
      USAGE_SPOOL_RETRY_MS: "500",
      // Renders twice as long as quickVideoEnv's, status polled a little more often.
      ...quickVideoEnv,
      VIDEO_POLL_MAX_MS: "200",
      SIMULATOR_VIDEO_SECONDS_PER_SECOND: "0.05",
    },
  });
  supervisor = superviseStack(stack, { echo: false, say: () => {}, firstDelayMs: 200 });
}, 120_000);
afterAll(async () => {
  await supervisor?.stop();
  await stack?.teardown();
}, 60_000);

const credit = 10_000_000n;
const rolled = ["router", "ledger", "video", "console"] as const;

// The service's Deployment's minReadySeconds, from the manifests.
function minReadyMs(name: (typeof rolled)[number]): number {
  const manifest = name === "console" ? "k8s/components/console/console.yaml" : `k8s/base/${name}.yaml`;
  const seconds = /\n {2}minReadySeconds: (\d+)\n/.exec(readFileSync(`${repoRoot}${manifest}`, "utf8"))?.[1];
  if (!seconds) throw new Error(`${manifest} sets no minReadySeconds`);
  return Number(seconds) * 1_000;
}

async function reservedOf(accounts: DemoAccount[]): Promise<string[]> {
  const held = await Promise.all(
    accounts.map((account) => openReservations(stack.redisUrl, stack.namespace, account.account_id)),
  );
  return held.flatMap((reservations) => Object.keys(reservations));
}

it("rolls every replica of router, ledger, video and the console under load: no request fails, billing stays exact", async () => {
  const accounts = await Promise.all(
    [1, 2, 3].map((index) => stack.createAccount({ name: `rollout-${index}`, creditYuan: 10 })),
  );
  const load = new SteadyLoad({ baseUrl: stack.baseUrl, accounts, ratePerSecond: 10, maxInFlight: 64, maxRetries: 0 });
  const servedAtLeast = (count: number) =>
    eventually(async () => (load.servedCount >= count ? true : undefined), 60_000, 100);
  const owner = await stack.createAccount({ group: "premium", creditYuan: 1_000 });
  const initialVideoBalance = await balanceMicrosOf(stack.databaseUrl, owner.account_id);
  const video = new VideoClients(videoApi(stack.baseUrl, owner.api_key));
  video.startSubmitting(1_000, (index) => `rollout ${index} [sim:video_ms=1500]`);
  video.startPolling(200);
  await servedAtLeast(10);

  const steps: { replica: string; at: number; exitCode: number | null; drainMs: number; readyMs: number }[] = [];
  for (const name of rolled) {
    const replicas = stack.replicas[name]!;
    expect(replicas).toHaveLength(2);
    for (const index of [0, 1]) {
      const old: ServiceProcess = replicas[index]!;
      const startedAt = Date.now();
      const exitCode = await old.stop("SIGTERM");
      const drainMs = Date.now() - startedAt;
      await eventually(async () => (replicas[index] !== old ? true : undefined), 60_000, 50);
      steps.push({ replica: `${name}-${index}`, at: startedAt, exitCode, drainMs, readyMs: Date.now() - startedAt });
      // The rollout waits `minReadySeconds` with the new replica ready before it stops the next.
      await sleep(minReadyMs(name));
      await servedAtLeast(load.servedCount + 5);
    }
  }
  await servedAtLeast(load.servedCount + 10);
  await video.stop();
  const report = await load.stop();

  const billing = await checkExactBilling(stack.databaseUrl, report, credit);
  const errors = report.attempts.filter((attempt) => attempt.status !== 200);
  const tasks = await video.completed(stack.databaseUrl);
  const records = await accountUsageRecords(stack.databaseUrl, owner.account_id, tasks.length, 30_000);
  const videoBilled = records.reduce((sum, row) => sum + BigInt(row.cost_micros), 0n);
  const finalVideoBalance = await balanceMicrosOf(stack.databaseUrl, owner.account_id);
  // Which replica's restart each failure came in (from its SIGTERM to the next one's).
  const during = (at: number) => steps.findLast((step) => step.at <= at)?.replica ?? "before";
  const failures = [
    ...report.failed.map((failure) => `${during(failure.at)}: chat ${failure.status} ${failure.message}`),
    ...video.failed.map((answer) => `${during(answer.at)}: ${answer.status} ${answer.what}`),
  ];
  console.log(
    `rolling restart: ${JSON.stringify(steps.map(({ at, ...step }) => step))}; chat ${load.servedCount} served, ${report.failed.length} failed, ` +
      `${errors.length} errors seen, ${billing.records} records; video ${video.answers.length} answers, ` +
      `${video.failed.length} failed, ${tasks.length} tasks, ${records.length} records; failures: ${JSON.stringify(failures.slice(0, 20))}`,
  );
  expect(steps.map((step) => step.exitCode)).toEqual(steps.map(() => 0));
  expect(report.failed).toEqual([]);
  expect(report.interrupted).toEqual([]);
  expect(errors).toEqual([]);
  expect(video.failed).toEqual([]);
  expect(billing).toMatchObject({ missing: [], doubled: [], billedErrors: [], balanceMismatches: [], unattributed: 0 });
  expect(await reservedOf(accounts)).toEqual([]);
  // Every task rendered and billed once, the balance down by exactly that, nothing left reserved.
  expect(records.map((row) => row.request_id).sort()).toEqual(tasks.map((task) => task.request_id).sort());
  const jobs = (await simulatedVideoJobs(stack.simulatorUrl)).filter((job) => job.prompt.startsWith("rollout "));
  expect(jobs).toHaveLength(tasks.length);
  expect(new Set(jobs.map((job) => job.prompt)).size).toBe(tasks.length);
  expect(initialVideoBalance - finalVideoBalance).toBe(videoBilled);
  expect(await reservedOf([owner])).toEqual([]);
}, 300_000);
