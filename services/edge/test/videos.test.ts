import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { eventually, openReservations, simulatorRequests, startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeMp4 } from "../../simulator/test/mp4-probe.js";
import { billedRows, multiplierOf, unitCost } from "./media-fixtures.js";
import { quickVideoEnv, setVideoClockOffset, simulatedVideoJobs, taskRows, videoApi } from "./video-fixtures.js";

const CALLBACK_KEY = "callback-signing-key-for-tests";
const PRICE_PER_SECOND = 700_000;
const DAY_MS = 24 * 60 * 60 * 1000;

let stack: TestStack;
let api: ReturnType<typeof videoApi>;
let other: ReturnType<typeof videoApi>;
let defaultGroup: ReturnType<typeof videoApi>;
let multiplier: number;

const requestIdOf = async (taskId: string) => (await taskRows(stack.databaseUrl, "id = $1", [taskId]))[0]!.request_id;

beforeAll(async () => {
  stack = await startTestStack({
    env: {
      ...quickVideoEnv,
      VIDEO_TASK_TIMEOUT_MS: "6000",
      VIDEO_CALLBACK_SIGNING_KEY: CALLBACK_KEY,
      VIDEO_CALLBACK_ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
      VIDEO_CALLBACK_BASE_DELAY_MS: "100",
    },
  });
  const [premium, second, basic] = await Promise.all([
    stack.createAccount({ group: "premium" }),
    stack.createAccount({ group: "premium" }),
    stack.createAccount({ group: "default" }),
  ]);
  api = videoApi(stack.baseUrl, premium.api_key);
  other = videoApi(stack.baseUrl, second.api_key);
  defaultGroup = videoApi(stack.baseUrl, basic.api_key);
  multiplier = await multiplierOf(stack.databaseUrl, "premium");
});
afterAll(async () => {
  await stack?.teardown();
});

describe("video generation lifecycle", () => {
  it("answers pending at once, completes, bills the seconds and serves the MP4 with ranges", async () => {
    const submitted = await api.submit({ model: "sora-2", prompt: "a red kite over the sea", async: true });
    expect(submitted.response.status).toBe(200);
    expect(submitted.body).toMatchObject({ status: "pending" });
    expect(submitted.body.id).toMatch(/^task_[0-9a-f]{32}$/);
    expect(Math.abs(submitted.body.created_at - Date.now() / 1000)).toBeLessThan(30);
    expect(submitted.response.headers.get("retry-after")).toBe("5");

    const done = await api.finished(submitted.body.id);
    expect(done).toMatchObject({ id: submitted.body.id, status: "completed", progress: 100, duration: 5 });
    expect(done.error).toBeUndefined();
    const finalAnswer = await api.get(submitted.body.id);
    expect(finalAnswer.response.headers.get("retry-after")).toBeNull();

    // The vendor saw the portrait size and the duration, as Sora's string seconds.
    const upstream = (await simulatorRequests(stack.simulatorUrl)).filter(
      (request) => request.path === "/v1/videos" && JSON.stringify(request.body).includes("red kite"),
    );
    expect(upstream.map((request) => request.body)).toEqual([
      { model: "sora-2", prompt: "a red kite over the sea", seconds: "5", size: "720x1280" },
    ]);

    // A signed link, downloadable without the API key.
    const url = new URL(done.video_url!);
    expect(url.pathname).toBe(`/v1/videos/generations/${done.id}/content`);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("video/mp4");
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    const file = Buffer.from(await whole.arrayBuffer());
    expect(Number(whole.headers.get("content-length"))).toBe(file.length);
    expect(file.toString("ascii", 4, 8)).toBe("ftyp");
    // A playable H.264 video as long as the task's seconds, as a demuxer reads it.
    const probed = probeMp4(file);
    expect(probed.movieSeconds).toBe(5);
    expect(probed.video).toEqual([
      expect.objectContaining({ codec: expect.stringMatching(/^avc1\./), durationSeconds: 5, firstSampleIsSync: true }),
    ]);

    const part = await fetch(url, { headers: { range: "bytes=100-1123" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-1123/${file.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(file.subarray(100, 1124))).toBe(true);

    const tail = await fetch(url, { headers: { range: "bytes=-10" } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(file.subarray(file.length - 10))).toBe(true);

    const beyond = await fetch(url, { headers: { range: `bytes=${file.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${file.length}`);

    // Tampering with the link or its expiry is refused.
    const forged = new URL(url);
    forged.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600));
    const refused = await fetch(forged);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("invalid_signature");

    const billed = await eventually(async () => (await billedRows(stack.databaseUrl, await requestIdOf(done.id)))[0]);
    expect(billed).toMatchObject({
      endpoint: "/v1/videos/generations",
      model: "sora-2",
      billed_units: 5,
      unit: "video_second",
      outcome: "ok",
      cost_micros: String(unitCost(5, PRICE_PER_SECOND, multiplier)),
    });
  });

  it("sends landscape and longer durations to the vendor and advises slower polling for them", async () => {
    const submitted = await api.submit({
      model: "sora-2-landscape",
      prompt: "a landscape pan",
      duration: 15,
      async: true,
    });
    expect(submitted.response.status).toBe(200);
    expect(submitted.response.headers.get("retry-after")).toBe("15");
    const done = await api.finished(submitted.body.id);
    expect(done).toMatchObject({ status: "completed", duration: 15, model: "sora-2-landscape" });
    const upstream = (await simulatorRequests(stack.simulatorUrl)).find(
      (request) => request.path === "/v1/videos" && JSON.stringify(request.body).includes("landscape pan"),
    );
    expect(upstream?.body).toMatchObject({ model: "sora-2", seconds: "15", size: "1280x720" });
    const file = Buffer.from(await (await fetch(done.video_url!)).arrayBuffer());
    expect(probeMp4(file).video).toEqual([
      expect.objectContaining({ durationSeconds: 15, samplesSeconds: 15, width: 256, height: 144 }),
    ]);
    const billed = await eventually(async () => (await billedRows(stack.databaseUrl, await requestIdOf(done.id)))[0]);
    expect(billed).toMatchObject({ billed_units: 15, unit: "video_second" });
  });
});

describe("video request validation", () => {
  const valid = { model: "sora-2", prompt: "validation probe", async: true };
  const cases: [string, unknown, string | null][] = [
    ["no model", { prompt: "validation probe", async: true }, "model"],
    ["no prompt", { model: "sora-2", async: true }, "prompt"],
    ["an empty prompt", { ...valid, prompt: "  " }, "prompt"],
    ["a duration outside 5/10/15/20", { ...valid, duration: 7 }, "duration"],
    ["a duration as a string", { ...valid, duration: "10" }, "duration"],
    ["async false", { ...valid, async: false }, "async"],
    ["no async", { model: "sora-2", prompt: "validation probe" }, "async"],
    ["an unknown field", { ...valid, fps: 30 }, "fps"],
    ["a callback that is not http(s)", { ...valid, callback_url: "file:///etc/passwd" }, "callback_url"],
  ];

  it.each(cases)("refuses %s with a 400 naming the parameter", async (_name, body, param) => {
    const { response, body: answer } = await api.submit(body);
    expect(response.status).toBe(400);
    expect(answer.error).toMatchObject({ type: "invalid_request_error", param });
    expect(typeof answer.error.message).toBe("string");
  });

  it("says that async must be true", async () => {
    const { body } = await api.submit({ ...valid, async: false });
    expect(body.error.message).toMatch(/'async'.*must be true/);
  });

  it("refuses malformed JSON and a bad Idempotency-Key", async () => {
    expect((await api.submit("{not json")).response.status).toBe(400);
    const { response, body } = await api.submit(valid, { "idempotency-key": "x".repeat(300) });
    expect(response.status).toBe(400);
    expect(body.error.param).toBe("Idempotency-Key");
  });

  it("answers 404 model_not_found for unknown models and models outside the key's group", async () => {
    for (const [client, model] of [
      [api, "sora-3"],
      [defaultGroup, "sora-2"],
    ] as const) {
      const { response, body } = await client.submit({ ...valid, model });
      expect(response.status).toBe(404);
      expect(body.error).toMatchObject({ type: "invalid_request_error", code: "model_not_found", param: "model" });
    }
  });

  it("refuses a model that does not make videos", async () => {
    const { response, body } = await api.submit({ ...valid, model: "gpt-4o-mini" });
    expect(response.status).toBe(400);
    expect(body.error).toMatchObject({ code: "unsupported_model", param: "model" });
  });

  it("never lets a refused request reach the vendor or create a task", async () => {
    const upstream = (await simulatorRequests(stack.simulatorUrl)).filter((request) =>
      JSON.stringify(request.body).includes("validation probe"),
    );
    expect(upstream).toEqual([]);
    expect(await taskRows(stack.databaseUrl, "prompt = $1", [valid.prompt])).toEqual([]);
  });
});

describe("video task visibility", () => {
  it("answers one identical 404 for another account's id, an unknown id and a malformed id", async () => {
    const mine = await api.submit({ model: "sora-2", prompt: "private video", async: true });
    const answers = await Promise.all([
      other.get(mine.body.id),
      other.get("task_00000000000000000000000000000000"),
      other.get("not-a-task"),
    ]);
    for (const { response, body } of answers) {
      expect(response.status).toBe(404);
      expect(body.error).toMatchObject({ type: "invalid_request_error", code: "not_found", param: null });
    }
    const [foreign, unknown] = answers.map(({ body }) => body.error.message);
    expect(foreign!.replace(mine.body.id, "ID")).toBe(unknown!.replace("task_00000000000000000000000000000000", "ID"));
    expect((await api.get(mine.body.id)).response.status).toBe(200);
  });
});

describe("idempotent submit", () => {
  it("returns the same task for a retried submit with the same Idempotency-Key", async () => {
    const body = { model: "sora-2", prompt: "idempotent video", async: true };
    const headers = { "idempotency-key": "retry-me-1" };
    const [first, second] = await Promise.all([api.submit(body, headers), api.submit(body, headers)]);
    const third = await api.submit(body, headers);
    expect(first.response.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
    expect(third.body.id).toBe(first.body.id);
    expect(await taskRows(stack.databaseUrl, "prompt = $1", [body.prompt])).toHaveLength(1);

    // The key is per account, and reusing it for another request is a conflict.
    const elsewhere = await other.submit(body, headers);
    expect(elsewhere.body.id).not.toBe(first.body.id);
    const changed = await api.submit({ ...body, duration: 10 }, headers);
    expect(changed.response.status).toBe(409);
    expect(changed.body.error.code).toBe("idempotency_key_reused");

    // One vendor job per task: the retries made none of their own.
    await Promise.all([api.finished(first.body.id), other.finished(elsewhere.body.id)]);
    const jobs = (await simulatedVideoJobs(stack.simulatorUrl)).filter((job) => job.prompt === body.prompt);
    expect(jobs).toHaveLength(2);
  });
});

describe("failed video tasks", () => {
  it("reports a vendor job that failed, and bills nothing", async () => {
    const submitted = await api.submit({ model: "sora-2", prompt: "doomed [sim:video_fail]", async: true });
    const done = await api.finished(submitted.body.id);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/video provider failed.*Simulated video generation failure/);
    expect(done.video_url).toBeUndefined();
    // Give a (wrong) usage event time to land before checking there is none.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await billedRows(stack.databaseUrl, await requestIdOf(done.id))).toEqual([]);
  });

  it("fails a task whose vendor keeps answering 500 after bounded retries, unbilled", async () => {
    const submitted = await api.submit({ model: "sora-2", prompt: "broken vendor [sim:status=500]", async: true });
    const done = await api.finished(submitted.body.id);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/video provider failed/);
    const creates = (await simulatorRequests(stack.simulatorUrl)).filter(
      (request) => request.path === "/v1/videos" && JSON.stringify(request.body).includes("broken vendor"),
    );
    expect(creates).toHaveLength(3);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await billedRows(stack.databaseUrl, await requestIdOf(done.id))).toEqual([]);
  });

  it("times out an unfinished task and cancels its vendor job", async () => {
    const submitted = await api.submit({ model: "sora-2", prompt: "endless [sim:video_ms=600000]", async: true });
    const running = await eventually(async () => {
      const [row] = await taskRows(stack.databaseUrl, "id = $1", [submitted.body.id]);
      return row?.vendor_job_id ? row : undefined;
    });
    const done = await api.finished(submitted.body.id, 15_000);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/timed out/);
    await eventually(async () => {
      const deletes = (await simulatorRequests(stack.simulatorUrl)).filter(
        (request) => request.method === "DELETE" && request.path === `/v1/videos/${running.vendor_job_id}`,
      );
      return deletes.length === 1 ? true : undefined;
    });
    const job = (await simulatedVideoJobs(stack.simulatorUrl)).find(
      (candidate) => candidate.id === running.vendor_job_id,
    );
    expect(job?.deleted).toBe(true);
    expect(await billedRows(stack.databaseUrl, await requestIdOf(done.id))).toEqual([]);
  });
});

describe("video reservations", () => {
  const reservationsOf = (accountId: string) => openReservations(stack.redisUrl, stack.namespace, accountId);

  it("reserves every requested second at submit and settles it with the delivered seconds", async () => {
    const account = await stack.createAccount({ group: "premium" });
    const client = videoApi(stack.baseUrl, account.api_key);
    const submitted = await client.submit({
      model: "sora-2",
      prompt: "reserved video [sim:video_ms=1500]",
      async: true,
      duration: 10,
    });
    const requestId = await requestIdOf(submitted.body.id);
    expect(await reservationsOf(account.account_id)).toEqual({
      [requestId]: unitCost(10, PRICE_PER_SECOND, multiplier),
    });
    expect((await client.finished(submitted.body.id)).status).toBe("completed");
    await eventually(async () => ((await billedRows(stack.databaseUrl, requestId)).length === 1 ? true : undefined));
    await eventually(async () =>
      Object.keys(await reservationsOf(account.account_id)).length === 0 ? true : undefined,
    );
  });

  it("releases the reservation of a failed task at once", async () => {
    const account = await stack.createAccount({ group: "premium" });
    const client = videoApi(stack.baseUrl, account.api_key);
    const submitted = await client.submit({ model: "sora-2", prompt: "released [sim:video_fail]", async: true });
    expect((await client.finished(submitted.body.id)).status).toBe("failed");
    await eventually(async () =>
      Object.keys(await reservationsOf(account.account_id)).length === 0 ? true : undefined,
    );
    expect(await billedRows(stack.databaseUrl, await requestIdOf(submitted.body.id))).toEqual([]);
  });

  it("refuses a video the balance cannot cover with 429 insufficient_quota, before any task or vendor job", async () => {
    // 20 s at the premium multiplier costs more than 10 yuan; 5 s does not.
    const account = await stack.createAccount({ group: "premium", creditYuan: 10 });
    const client = videoApi(stack.baseUrl, account.api_key);
    const refused = await client.submit({ model: "sora-2", prompt: "too long to afford", async: true, duration: 20 });
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get("x-should-retry")).toBe("false");
    expect(refused.body.error).toMatchObject({ code: "insufficient_quota", type: "insufficient_quota" });
    expect(await taskRows(stack.databaseUrl, "account_id = $1", [account.account_id])).toEqual([]);
    const upstream = (await simulatorRequests(stack.simulatorUrl)).filter((request) =>
      JSON.stringify(request.body).includes("too long to afford"),
    );
    expect(upstream).toEqual([]);
    const affordable = await client.submit({ model: "sora-2", prompt: "short and affordable", async: true });
    expect(affordable.response.status).toBe(200);
  });
});

describe("callbacks", () => {
  let receiver: Server;
  const deliveries: { headers: IncomingMessage["headers"]; body: string }[] = [];
  let refuseFirst = true;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        deliveries.push({ headers: request.headers, body });
        // The first delivery is refused, so the retry is exercised.
        response.statusCode = refuseFirst ? 500 : 204;
        refuseFirst = false;
        response.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it("posts the finished task, signed, and retries until the receiver accepts", async () => {
    const port = (receiver.address() as AddressInfo).port;
    const submitted = await api.submit({
      model: "sora-2",
      prompt: "video with a callback",
      async: true,
      callback_url: `http://127.0.0.1:${port}/hooks/video`,
    });
    await eventually(async () => (deliveries.length >= 2 ? true : undefined));
    const delivered = deliveries[1]!;
    const payload = JSON.parse(delivered.body) as { id: string; status: string; video_url?: string };
    expect(payload).toMatchObject({ id: submitted.body.id, status: "completed" });
    expect(payload.video_url).toContain(`/v1/videos/generations/${submitted.body.id}/content`);
    const signature = String(delivered.headers["x-gateway-signature"]);
    const [, timestamp, digest] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature)!;
    expect(createHmac("sha256", CALLBACK_KEY).update(`${timestamp}.${delivered.body}`).digest("hex")).toBe(digest);
    const [row] = await eventually(async () => {
      const rows = await taskRows(stack.databaseUrl, "id = $1", [submitted.body.id]);
      return rows[0]?.callback_state === "delivered" ? rows : undefined;
    });
    expect(row).toMatchObject({ callback_state: "delivered", callback_attempts: 2 });
  });

  it("abandons a receiver that trickles its answer at the deadline and retries it, finishing other tasks meanwhile", async () => {
    // The first delivery is answered a byte a second, so no answer is ever complete; the retry is answered at once.
    const connections: { openedAt: number; closedAt?: number }[] = [];
    const trickler = createTcpServer((socket) => {
      const connection: { openedAt: number; closedAt?: number } = { openedAt: Date.now() };
      connections.push(connection);
      const answer = Buffer.from("HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n");
      let sent = 0;
      const timer =
        connections.length === 1 ? setInterval(() => socket.write(answer.subarray(sent, ++sent)), 1_000) : undefined;
      if (!timer) socket.once("data", () => socket.end(answer));
      socket.on("error", () => undefined);
      socket.on("close", () => {
        clearInterval(timer);
        connection.closedAt = Date.now();
      });
    });
    await new Promise<void>((resolve) => trickler.listen(0, "127.0.0.1", resolve));
    try {
      const port = (trickler.address() as AddressInfo).port;
      const slow = await api.submit({
        model: "sora-2",
        prompt: "video for a trickling receiver",
        async: true,
        callback_url: `http://127.0.0.1:${port}/hooks/video`,
      });
      const first = await eventually(async () => connections[0], 20_000);

      // Claims go on while the receiver holds its delivery: another task runs to completion.
      const other = await api.submit({ model: "sora-2", prompt: "video finished during a slow callback", async: true });
      expect((await api.finished(other.body.id)).status).toBe("completed");
      expect(first.closedAt).toBeUndefined();

      // The worker hangs up at the 10 s deadline, counts a failed attempt and delivers on the retry.
      await eventually(async () => first.closedAt, 20_000);
      expect(first.closedAt! - first.openedAt).toBeGreaterThanOrEqual(9_000);
      expect(first.closedAt! - first.openedAt).toBeLessThan(15_000);
      const [row] = await eventually(async () => {
        const rows = await taskRows(stack.databaseUrl, "id = $1", [slow.body.id]);
        return rows[0]?.callback_state === "delivered" ? rows : undefined;
      }, 20_000);
      expect(row).toMatchObject({ callback_state: "delivered", callback_attempts: 2 });
      expect(connections).toHaveLength(2);
    } finally {
      await new Promise((resolve) => trickler.close(resolve));
    }
  }, 90_000);
});

describe("24-hour lifetime", () => {
  it("stops answering for a task after 24 hours and purges it with its file", async () => {
    const submitted = await api.submit({ model: "sora-2", prompt: "short-lived video", async: true });
    const done = await api.finished(submitted.body.id);
    expect(done.status).toBe("completed");
    const [row] = await taskRows(stack.databaseUrl, "id = $1", [done.id]);
    const file = `${stack.videoEnv.VIDEO_STORAGE_DIR}/${row!.storage_key}`;
    expect(existsSync(file)).toBe(true);

    const videoPort = stack.processes.video.ports.grpc!;
    try {
      await setVideoClockOffset(videoPort, DAY_MS - 60_000);
      expect((await api.get(done.id)).response.status).toBe(200);
      await setVideoClockOffset(videoPort, DAY_MS + 1_000);
      const gone = await api.get(done.id);
      expect(gone.response.status).toBe(404);
      expect(gone.body.error.code).toBe("not_found");
      expect((await fetch(done.video_url!)).status).toBeGreaterThanOrEqual(403);
      // The purge deletes the row first and the file right after it, so both are awaited.
      await eventually(async () =>
        (await taskRows(stack.databaseUrl, "id = $1", [done.id])).length === 0 && !existsSync(file) ? true : undefined,
      );
    } finally {
      await setVideoClockOffset(videoPort, 0);
    }
  });
});
