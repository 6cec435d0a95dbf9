import { setTimeout as sleep } from "node:timers/promises";
import { loadUsageDefinition } from "@gateway/platform";
import {
  accountUsageRecords,
  balanceMicrosOf,
  checkExactBilling,
  type DemoAccount,
  eventually,
  faultSuite,
  openReservations,
  queryRows,
  type ServiceProcess,
  SteadyLoad,
  type Supervisor,
  simulatorRequests,
  startTestStack,
  superviseStack,
  type TestStack,
  usageConsumerState,
} from "@gateway/stack";
import { afterAll, beforeAll, expect, it } from "vitest";
import { VideoClients } from "./video-clients.js";
import { quickVideoEnv, simulatedVideoJobs, taskRows, videoApi } from "./video-fixtures.js";

// Two replicas of router, ledger and video under steady load from the official SDK, which
// retries nothing here (`maxRetries: 0`): every failure edge lets through is counted. One
// ledger, then one video replica is SIGKILLed; the stack's supervisor replaces it on its ports.
// Neither is in a vendor call of a chat request, so no request may fail.
let stack: TestStack;
let supervisor: Supervisor;
const replacedAt = new Map<string, number>();

beforeAll(async () => {
  stack = await startTestStack({
    replicas: 2,
    env: {
      USAGE_SPOOL_RETRY_MS: "500",
      // A task a dead worker held is taken over once its lease lapses.
      VIDEO_LEASE_MS: "4000",
      // Renders twice as long as quickVideoEnv's, status polled a little more often.
      ...quickVideoEnv,
      VIDEO_POLL_MAX_MS: "200",
      SIMULATOR_VIDEO_SECONDS_PER_SECOND: "0.05",
      // The vendor calls of the whole run, chat load and status polls included, stay in the
      // simulator's log, so the video creates counted at the end are all still there.
      SIMULATOR_REQUEST_LOG_CAPACITY: "20000",
    },
  });
  supervisor = superviseStack(stack, {
    echo: false,
    say: () => {},
    firstDelayMs: 200,
    replaced: (service) => replacedAt.set(`${service.name}-${service.replica}`, Date.now()),
  });
}, 120_000);
afterAll(async () => {
  await supervisor?.stop();
  await stack?.teardown();
}, 60_000);

const credit = 10_000_000n;

async function startLoad(name: string) {
  const accounts = await Promise.all(
    [1, 2, 3].map((index) => stack.createAccount({ name: `${name}-${index}`, creditYuan: 10 })),
  );
  const load = new SteadyLoad({ baseUrl: stack.baseUrl, accounts, ratePerSecond: 10, maxInFlight: 64, maxRetries: 0 });
  const servedAtLeast = (count: number) =>
    eventually(async () => (load.servedCount >= count ? true : undefined), 60_000, 100);
  await servedAtLeast(10);
  return { accounts, load, servedAtLeast };
}

// A video worker's default id ends with its process id.
const workerOf = (replica: ServiceProcess) => `-${replica.child.pid}`;

/** Request ids that still hold a cost reservation, of the given accounts. */
async function reservedOf(accounts: DemoAccount[]): Promise<string[]> {
  const held = await Promise.all(
    accounts.map((account) => openReservations(stack.redisUrl, stack.namespace, account.account_id)),
  );
  return held.flatMap((reservations) => Object.keys(reservations));
}

it("loses a ledger replica mid-batch under load: no request fails, its held events are billed once by the other", async () => {
  const { accounts, load, servedAtLeast } = await startLoad("ledger-kill");
  const lost = stack.replicas.ledger[1]!;
  // Frozen first, as a ledger stuck in its batch: JetStream keeps handing it the events it
  // pulled ahead, and it acknowledges none of them before it dies.
  const frozenAt = Date.now();
  lost.child.kill("SIGSTOP");
  await sleep(1_000);
  const atKill = await usageConsumerState(stack.namespace);
  const killedAt = Date.now();
  lost.child.kill("SIGKILL");
  await eventually(async () => (stack.replicas.ledger[1] !== lost ? true : undefined), 60_000, 100);
  await servedAtLeast(load.servedCount + 20);
  await sleep(faultSuite.outageMs);
  const report = await load.stop();

  const billing = await checkExactBilling(stack.databaseUrl, report, credit);
  // The events the dead ledger held come back to the other once the consumer's ack wait has
  // passed since they were handed to it (while it was frozen): those recorded that late.
  const ackWaitMs = loadUsageDefinition(stack.namespace).consumer.ack_wait_seconds * 1_000;
  const answeredBeforeKill = report.attempts
    .filter((attempt) => attempt.status === 200 && attempt.at < killedAt && attempt.requestId)
    .map((attempt) => attempt.requestId!);
  const redelivered = await queryRows<{ created_at: Date }>(
    stack.databaseUrl,
    "SELECT created_at FROM ledger.usage_records WHERE request_id = ANY($1) AND created_at >= $2",
    [answeredBeforeKill, new Date(frozenAt + ackWaitMs)],
  );
  const lastBilledAt = Math.max(...redelivered.map((row) => row.created_at.getTime()));
  const errors = report.attempts.filter((attempt) => attempt.status !== 200);
  const reserved = await reservedOf(accounts);
  console.log(
    `ledger replica kill: ${load.servedCount} served, ${report.failed.length} failed, ${errors.length} errors seen, ` +
      `${atKill.ackPending} events unacknowledged at the kill, ${redelivered.length} of them billed by the other ` +
      `${lastBilledAt - killedAt} ms after it (ack wait ${ackWaitMs} ms); replacement ready ` +
      `${replacedAt.get("ledger-1")! - killedAt} ms after the kill; ${billing.missing.length} events lost, ${billing.records} records`,
  );
  expect(report.failed).toEqual([]);
  expect(report.interrupted).toEqual([]);
  expect(errors).toEqual([]);
  // It died holding events, and JetStream gave them to the other replica.
  expect(atKill.ackPending).toBeGreaterThan(0);
  expect(redelivered.length).toBeGreaterThan(0);
  expect(billing).toMatchObject({ missing: [], doubled: [], billedErrors: [], balanceMismatches: [], unattributed: 0 });
  expect(reserved).toEqual([]);
}, 180_000);

it("loses a video replica mid-render under load: its task is rendered and billed once, and no request fails", async () => {
  const { accounts, load } = await startLoad("video-kill");
  const owner = await stack.createAccount({ group: "premium", creditYuan: 1_000 });
  const initial = await balanceMicrosOf(stack.databaseUrl, owner.account_id);
  const clients = new VideoClients(videoApi(stack.baseUrl, owner.api_key));
  // Long renders (4 s): each worker holds several at the kill.
  const prompts = Array.from({ length: 8 }, (_, index) => `replica kill ${index} [sim:video_ms=4000]`);
  await Promise.all(prompts.map((prompt) => clients.submit(prompt)));
  // The replica to kill: one whose worker holds a task with its vendor job under way.
  const { lost, held } = await eventually(
    async () => {
      const rows = await taskRows(stack.databaseUrl, "id = ANY($1) AND vendor_job_id IS NOT NULL", [clients.submitted]);
      for (const replica of stack.replicas.video) {
        const mine = rows.filter((row) => row.worker_id?.endsWith(workerOf(replica)));
        if (mine.length > 0) return { lost: replica, held: mine };
      }
      return undefined;
    },
    30_000,
    50,
  );
  const lostWorker = workerOf(lost);
  // Clients keep asking about their tasks, and submit more, through the kill.
  clients.startPolling();
  await sleep(500);
  const killedAt = Date.now();
  lost.child.kill("SIGKILL");
  for (let index = 0; index < 4; index++) {
    await clients.submit(`after the kill ${index} [sim:video_ms=500]`);
    await sleep(500);
  }
  const rows = await clients.completed(stack.databaseUrl);
  const recoveredAt = Date.now();
  await clients.stop();
  const report = await load.stop();

  const tookOver = rows.filter((row) => held.some((task) => task.id === row.id));
  const jobs = (await simulatedVideoJobs(stack.simulatorUrl)).filter((job) => job.prompt.startsWith("replica kill"));
  const creates = (await simulatorRequests(stack.simulatorUrl)).filter(
    (request) =>
      request.method === "POST" &&
      request.path === "/v1/videos" &&
      String(request.body?.prompt).startsWith("replica kill"),
  );
  const records = await accountUsageRecords(stack.databaseUrl, owner.account_id, rows.length, 30_000);
  const final = await balanceMicrosOf(stack.databaseUrl, owner.account_id);
  const billed = records.reduce((sum, row) => sum + BigInt(row.cost_micros), 0n);
  const failedAnswers = clients.failed;
  const chatBilling = await checkExactBilling(stack.databaseUrl, report, credit);
  console.log(
    `video replica kill: ${held.length} tasks held by the killed worker, finished by the other ` +
      `${recoveredAt - killedAt} ms after the kill (lease ${4_000} ms); replacement ready ` +
      `${replacedAt.get(`video-${lost.replica}`)! - killedAt} ms after it; ${clients.answers.length} video API answers, ` +
      `${failedAnswers.length} failed; chat ${load.servedCount} served, ${report.failed.length} failed`,
  );
  expect(failedAnswers).toEqual([]);
  expect(report.failed).toEqual([]);
  // The tasks the dead worker held were finished by another, each with its one vendor job.
  for (const row of tookOver) {
    expect(row.worker_id?.endsWith(lostWorker)).toBe(false);
    expect(row.attempts).toBe(2);
    expect(row.vendor_job_id).toBe(held.find((task) => task.id === row.id)!.vendor_job_id);
  }
  expect(jobs.map((job) => job.prompt).sort()).toEqual([...prompts].sort());
  expect(creates).toHaveLength(prompts.length);
  // Each task billed once, and the balance down by exactly that; nothing left reserved.
  expect(records.map((row) => row.request_id).sort()).toEqual(rows.map((row) => row.request_id).sort());
  expect(initial - final).toBe(billed);
  expect(await reservedOf([owner])).toEqual([]);
  expect(chatBilling).toMatchObject({ missing: [], doubled: [], billedErrors: [], balanceMismatches: [] });
  expect(await reservedOf(accounts)).toEqual([]);
}, 180_000);
