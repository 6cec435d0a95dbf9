import { randomUUID } from "node:crypto";
import { VideoServiceClient, type VideoTask } from "@gateway/proto/video/v1/video";
import {
  eventually,
  openReservations,
  queryRows,
  type ServiceProcess,
  serviceEntry,
  simulatorRequests,
  startService,
  startTestStack,
  type TestStack,
  testClientOptions,
} from "@gateway/stack";
import { credentials } from "@grpc/grpc-js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { simulatedVideoJobs, taskRows, videoApi } from "./video-fixtures.js";

// The stack's own video process serves the API only (VIDEO_WORKERS=0); each test starts the
// worker processes it needs, so it controls which worker holds which task.

let stack: TestStack;
let api: ReturnType<typeof videoApi>;
const workers: ServiceProcess[] = [];

const startWorker = async (id: string) => {
  const worker = await startService("video", serviceEntry.video, {
    ...stack.videoEnv,
    VIDEO_WORKERS: "1",
    VIDEO_WORKER_ID: id,
    VIDEO_GRPC_PORT: "0",
  });
  workers.push(worker);
  return worker;
};

beforeAll(async () => {
  stack = await startTestStack({
    env: {
      VIDEO_WORKERS: "0",
      SIMULATOR_VIDEO_SECONDS_PER_SECOND: "0.05",
      SIMULATOR_REQUEST_LOG_CAPACITY: "20000",
      VIDEO_LEASE_MS: "4000",
      VIDEO_WORKER_TICK_MS: "100",
      VIDEO_WORKER_CONCURRENCY: "8",
      VIDEO_POLL_INITIAL_MS: "100",
      VIDEO_POLL_MAX_MS: "200",
    },
  });
  // Every submit reserves its seconds: enough credit for 50 tasks at once.
  const account = await stack.createAccount({ group: "premium", creditYuan: 1_000 });
  api = videoApi(stack.baseUrl, account.api_key);
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop("SIGKILL")));
});
afterAll(async () => {
  await stack?.teardown();
});

const usageCount = async (requestIds: string[]) =>
  (
    await queryRows<{ count: number }>(
      stack.databaseUrl,
      "SELECT count(*)::int AS count FROM ledger.usage_records WHERE request_id = ANY($1)",
      [requestIds],
    )
  )[0]!.count;

const usagePublishedAt = async (taskId: string) =>
  (
    await queryRows<{ usage_published_at: Date | null }>(
      stack.databaseUrl,
      "SELECT usage_published_at FROM video.tasks WHERE id = $1",
      [taskId],
    )
  )[0]?.usage_published_at ?? undefined;

/**
 * The row a worker leaves when it dies between completing a task and publishing its usage: a
 * copy of `taskId` under new ids, completed two minutes ago, never published. One implicit
 * transaction, so no running worker sees it pending.
 */
async function insertCompletedUnpublished(taskId: string) {
  const id = `task_${randomUUID().replaceAll("-", "")}`;
  const requestId = randomUUID();
  await queryRows(
    stack.databaseUrl,
    `INSERT INTO video.tasks (id, request_id, account_id, key_id, model_group, model, vendor, channel, prompt,
       duration_seconds, size, public_base_url, created_at, expires_at)
     SELECT '${id}', '${requestId}', account_id, key_id, model_group, model, vendor, channel, prompt,
       duration_seconds, size, public_base_url, created_at, expires_at
     FROM video.tasks WHERE id = '${taskId}';
     UPDATE video.tasks SET status = 'processing' WHERE id = '${id}';
     UPDATE video.tasks SET status = 'completed', storage_key = 'lost.mp4', billed_seconds = duration_seconds,
       finished_at = now() - interval '2 minutes'
     WHERE id = '${id}';`,
  );
  return { id, requestId };
}

describe("video workers", () => {
  it("lets another worker finish the task of a worker killed mid-task, with one vendor job and one charge", async () => {
    const prompt = "survives a crash [sim:video_ms=4000]";
    const submitted = await api.submit({ model: "sora-2", prompt, async: true });
    const first = await startWorker("worker-a");
    const held = await eventually(async () => {
      const [row] = await taskRows(stack.databaseUrl, "id = $1", [submitted.body.id]);
      return row?.vendor_job_id && row.worker_id === "worker-a" ? row : undefined;
    });
    await first.stop("SIGKILL");
    await startWorker("worker-b");

    const done = await api.finished(submitted.body.id, 20_000);
    expect(done.status).toBe("completed");
    const [row] = await taskRows(stack.databaseUrl, "id = $1", [submitted.body.id]);
    expect(row).toMatchObject({ worker_id: "worker-b", attempts: 2, vendor_job_id: held.vendor_job_id });

    const jobs = (await simulatedVideoJobs(stack.simulatorUrl)).filter((job) => job.prompt === prompt);
    expect(jobs.map((job) => job.id)).toEqual([held.vendor_job_id]);
    const creates = (await simulatorRequests(stack.simulatorUrl)).filter(
      (request) =>
        request.method === "POST" && request.path === "/v1/videos" && JSON.stringify(request.body).includes(prompt),
    );
    expect(creates).toHaveLength(1);
    await eventually(async () => ((await usageCount([row!.request_id])) === 1 ? true : undefined));
  });

  it("shares 50 tasks between two workers without running any twice", async () => {
    await Promise.all([startWorker("worker-1"), startWorker("worker-2")]);
    const prompts = Array.from({ length: 50 }, (_, index) => `batch video ${index} [sim:video_ms=300]`);
    const submitted = await Promise.all(prompts.map((prompt) => api.submit({ model: "sora-2", prompt, async: true })));
    const ids = submitted.map(({ body }) => body.id);
    const rows = await eventually(
      async () => {
        const found = await taskRows(stack.databaseUrl, "id = ANY($1)", [ids]);
        return found.every((row) => row.status === "completed") ? found : undefined;
      },
      60_000,
      200,
    );
    expect(rows).toHaveLength(50);
    expect(new Set(rows.map((row) => row.worker_id))).toEqual(new Set(["worker-1", "worker-2"]));
    expect(rows.filter((row) => row.attempts !== 1)).toEqual([]);

    // Exactly one vendor job per task, per the simulator's own job list and its request log.
    const jobs = (await simulatedVideoJobs(stack.simulatorUrl)).filter((job) => job.prompt.startsWith("batch video"));
    expect(jobs.map((job) => job.prompt).sort()).toEqual([...prompts].sort());
    const creates = (await simulatorRequests(stack.simulatorUrl)).filter(
      (request) => request.method === "POST" && request.path === "/v1/videos",
    );
    const createdPrompts = creates
      .map((request) => String(request.body?.prompt))
      .filter((prompt) => prompt.startsWith("batch video"));
    expect(createdPrompts.sort()).toEqual([...prompts].sort());
    expect(new Set(rows.map((row) => row.vendor_job_id)).size).toBe(50);

    await eventually(async () => ((await usageCount(rows.map((row) => row.request_id))) === 50 ? true : undefined));
  });

  it("bills, once, a completed task whose usage a dead worker never published", async () => {
    // Its own account, so the balance other tests spent does not matter.
    const owner = videoApi(stack.baseUrl, (await stack.createAccount({ group: "premium" })).api_key);
    const worker = await startWorker("worker-publisher");
    const submitted = await owner.submit({ model: "sora-2", prompt: "billed despite a crash", async: true });
    expect((await owner.finished(submitted.body.id)).status).toBe("completed");
    const [original] = await taskRows(stack.databaseUrl, "id = $1", [submitted.body.id]);
    await eventually(() => usagePublishedAt(submitted.body.id));
    await eventually(async () => ((await usageCount([original!.request_id])) === 1 ? true : undefined));
    await worker.stop("SIGKILL");

    // A task whose charge was lost, and the original with its marker lost (its event went out).
    const lost = await insertCompletedUnpublished(submitted.body.id);
    await queryRows(
      stack.databaseUrl,
      "UPDATE video.tasks SET usage_published_at = NULL, finished_at = finished_at - interval '2 minutes' WHERE id = $1",
      [submitted.body.id],
    );
    await startWorker("worker-sweeper");
    await eventually(async () => (await usagePublishedAt(lost.id)) && (await usagePublishedAt(submitted.body.id)));
    await eventually(async () => ((await usageCount([lost.requestId])) === 1 ? true : undefined));
    expect(await usageCount([lost.requestId, original!.request_id])).toBe(2);
  });

  it("answers a submit sent again under its request id (edge's retry on another replica) with the first's task, keeping its reservation", async () => {
    const account = await stack.createAccount({ group: "premium" });
    const video = new VideoServiceClient(
      `127.0.0.1:${stack.processes.video.ports.grpc}`,
      credentials.createInsecure(),
      testClientOptions("edge"),
    );
    const request = {
      caller: {
        requestId: `req_${randomUUID().replaceAll("-", "")}`,
        accountId: account.account_id,
        keyId: account.key_id,
        modelGroup: "premium",
        multiplierBasisPoints: 15_000,
      },
      model: "sora-2",
      prompt: "submitted twice",
      durationSeconds: 5,
      idempotencyKey: "",
      callbackUrl: "",
      publicBaseUrl: stack.baseUrl,
    };
    const submit = () =>
      new Promise<VideoTask>((resolve, reject) =>
        video.submitVideo(request, (error, task) => (error ? reject(error) : resolve(task))),
      );
    try {
      const first = await submit();
      const reserved = await openReservations(stack.redisUrl, stack.namespace, account.account_id);
      const again = await submit();
      expect(again.id).toBe(first.id);
      expect(await taskRows(stack.databaseUrl, "request_id = $1", [request.caller.requestId])).toHaveLength(1);
      expect(reserved[request.caller.requestId]).toBeGreaterThan(0);
      expect(await openReservations(stack.redisUrl, stack.namespace, account.account_id)).toEqual(reserved);
    } finally {
      video.close();
    }
  });
});
