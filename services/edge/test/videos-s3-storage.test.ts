import { existsSync } from "node:fs";
import { eventually, simulatorRequests, startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quickVideoEnv, setVideoClockOffset, taskRows, videoApi } from "./video-fixtures.js";

const DAY_MS = 24 * 60 * 60 * 1000;

let stack: TestStack;
let api: ReturnType<typeof videoApi>;

interface StoredObject {
  bucket: string;
  key: string;
  size: number;
  contentType: string;
}

const storedObjects = async () =>
  ((await (await fetch(`${stack.simulatorUrl}/_sim/s3`)).json()) as { data: StoredObject[] }).data;

beforeAll(async () => {
  // VIDEO_STORAGE=s3 without an endpoint: the test stack stores videos in the simulator's S3.
  stack = await startTestStack({
    env: {
      VIDEO_STORAGE: "s3",
      VIDEO_S3_PREFIX: "videos/",
      ...quickVideoEnv,
    },
  });
  api = videoApi(stack.baseUrl, (await stack.createAccount({ group: "premium" })).api_key);
});
afterAll(async () => {
  await stack?.teardown();
});

describe("videos in S3-compatible storage", () => {
  it("copies the MP4 into the bucket, serves ranges from it and purges it after 24 hours", async () => {
    const submitted = await api.submit({ model: "sora-2", prompt: "a lighthouse at dusk", async: true });
    const done = await api.finished(submitted.body.id);
    expect(done.status).toBe("completed");
    const [row] = await taskRows(stack.databaseUrl, "id = $1", [done.id]);
    const key = `videos/${row!.storage_key}`;

    // In the bucket, under the prefix; nothing on the local disk.
    const [object] = (await storedObjects()).filter((stored) => stored.key === key);
    expect(object).toMatchObject({ bucket: "gateway-videos", contentType: "video/mp4" });
    expect(existsSync(`${stack.videoEnv.VIDEO_STORAGE_DIR}/${row!.storage_key}`)).toBe(false);

    const whole = await fetch(done.video_url!);
    expect(whole.status).toBe(200);
    const file = Buffer.from(await whole.arrayBuffer());
    expect(file.length).toBe(object!.size);
    expect(file.toString("ascii", 4, 8)).toBe("ftyp");

    const part = await fetch(done.video_url!, { headers: { range: "bytes=100-1123" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-1123/${file.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(file.subarray(100, 1124))).toBe(true);
    // The range was asked of the store, not cut from a whole download.
    const reads = (await simulatorRequests(stack.simulatorUrl)).filter(
      (request) => request.method === "GET" && request.path === `/s3/gateway-videos/${key}`,
    );
    expect(reads.map((request) => request.headers.range)).toEqual([`bytes=0-${file.length - 1}`, "bytes=100-1123"]);

    const videoPort = stack.processes.video.ports.grpc!;
    try {
      await setVideoClockOffset(videoPort, DAY_MS + 1_000);
      expect((await fetch(done.video_url!)).status).toBeGreaterThanOrEqual(403);
      await eventually(async () => {
        const purged = (await taskRows(stack.databaseUrl, "id = $1", [done.id])).length === 0;
        return purged && !(await storedObjects()).some((stored) => stored.key === key) ? true : undefined;
      });
    } finally {
      await setVideoClockOffset(videoPort, 0);
    }
  });
});
