import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { type Simulator, startSimulator } from "@gateway/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3Storage } from "../src/storage/s3-storage.js";

// The smallest part S3 (and the SDK's Upload) allows; a larger video goes up in parts.
const PART_BYTES = 5 * 1024 * 1024;
const BUCKET = "videos";
const ACCESS_KEY_ID = "video-test-key";
const SECRET = "video-test-secret";

let simulator: Simulator;

beforeAll(async () => {
  simulator = await startSimulator({
    port: 0,
    s3: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, buckets: [BUCKET] },
  });
});
afterAll(async () => {
  await simulator?.close();
});

const clientWith = (accessKeyId = ACCESS_KEY_ID, secretAccessKey = SECRET) =>
  new S3Client({
    region: "us-east-1",
    endpoint: `${simulator.url}/s3`,
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });

const storageWith = (client = clientWith()) => new S3Storage(client, BUCKET, "videos/");

/** Bytes that differ at every offset, so a misplaced range or part shows. */
function pattern(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let index = 0; index < size; index += 1) bytes[index] = (index * 31 + (index >> 16)) % 251;
  return bytes;
}

async function* chunksOf(bytes: Buffer, size = 64 * 1024) {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

const stored = (key: string) => simulator.state.objects.list().find((object) => object.key === key);
const requestsFor = (key: string) =>
  simulator.state.requests.list().filter((request) => request.path === `/s3/${BUCKET}/${key}`);

describe("S3Storage", () => {
  it("streams a video larger than a part as a multipart upload, then measures, reads a range and removes it", async () => {
    const storage = storageWith();
    const video = pattern(2 * PART_BYTES + 12_345);
    expect(await storage.put("task_big.mp4", chunksOf(video))).toEqual({ bytes: video.length });

    const requests = requestsFor("videos/task_big.mp4");
    expect(requests.filter((request) => request.method === "PUT")).toHaveLength(3);
    expect(requests.map((request) => request.status)).toEqual([200, 200, 200, 200, 200]);
    expect(stored("videos/task_big.mp4")).toEqual({
      bucket: BUCKET,
      key: "videos/task_big.mp4",
      size: video.length,
      contentType: "video/mp4",
    });
    expect(simulator.state.objects.pendingUploads()).toBe(0);

    expect(await storage.size("task_big.mp4")).toBe(video.length);
    // A range across the boundary between the first two parts.
    const range = await buffer(await storage.read("task_big.mp4", PART_BYTES - 10, PART_BYTES + 9));
    expect(range.equals(video.subarray(PART_BYTES - 10, PART_BYTES + 10))).toBe(true);
    const whole = await buffer(await storage.read("task_big.mp4", 0, video.length - 1));
    expect(whole.equals(video)).toBe(true);

    await storage.remove("task_big.mp4");
    expect(stored("videos/task_big.mp4")).toBeUndefined();
    expect(await storage.size("task_big.mp4")).toBeUndefined();
    await storage.remove("task_big.mp4");
  });

  it("stores a video smaller than a part in one request", async () => {
    const storage = storageWith();
    const video = pattern(40_000);
    expect(await storage.put("task_small.mp4", chunksOf(video, 7_000))).toEqual({ bytes: 40_000 });
    expect(requestsFor("videos/task_small.mp4").map((request) => request.method)).toEqual(["PUT"]);
    expect(await storage.size("task_small.mp4")).toBe(40_000);
    expect((await buffer(await storage.read("task_small.mp4", 39_990, 39_999))).equals(video.subarray(39_990))).toBe(
      true,
    );
    await storage.remove("task_small.mp4");
  });

  it("aborts the upload when the source fails, leaving no object and no open upload", async () => {
    const storage = storageWith();
    async function* broken() {
      yield* chunksOf(pattern(PART_BYTES + 1_000));
      throw new Error("vendor went away");
    }
    await expect(storage.put("task_broken.mp4", broken())).rejects.toThrow("vendor went away");
    // A part had gone up before the failure; the upload was then aborted.
    const requests = requestsFor("videos/task_broken.mp4");
    expect(requests.map((request) => request.method)).toEqual(["POST", "PUT", "DELETE"]);
    expect(requests.at(-1)?.status).toBe(204);
    expect(stored("videos/task_broken.mp4")).toBeUndefined();
    expect(simulator.state.objects.pendingUploads()).toBe(0);
  });

  it("tells a missing object from a broken store", async () => {
    expect(await storageWith().size("task_missing.mp4")).toBeUndefined();
    await expect(storageWith().read("task_missing.mp4", 0, 9)).rejects.toMatchObject({ name: "NoSuchKey" });
    await expect(new S3Storage(clientWith(), "no-such-bucket").size("task_1.mp4")).resolves.toBeUndefined();
    await expect(new S3Storage(clientWith(), "no-such-bucket").check()).rejects.toThrow(
      "bucket no-such-bucket cannot be used (HTTP 404)",
    );
    await expect(storageWith().check()).resolves.toBeUndefined();
  });

  it("is refused by the store with a wrong access key or secret", async () => {
    const wrongKey = storageWith(clientWith("someone-else", SECRET));
    await expect(wrongKey.remove("task_1.mp4")).rejects.toMatchObject({ name: "InvalidAccessKeyId" });
    const wrongSecret = storageWith(clientWith(ACCESS_KEY_ID, "not-the-secret"));
    await expect(wrongSecret.put("task_1.mp4", chunksOf(pattern(10)))).rejects.toMatchObject({
      name: "SignatureDoesNotMatch",
    });
    await expect(wrongSecret.size("task_1.mp4")).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
  });
});

describe("the simulated S3", () => {
  it("takes the aws-chunked body the SDK sends for a stream, checking its CRC32 trailer", async () => {
    const client = clientWith();
    const video = pattern(100_000);
    await client.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: "streamed.mp4",
        Body: Readable.from(chunksOf(video, 30_000)),
        ContentLength: video.length,
      }),
    );
    const put = requestsFor("streamed.mp4").at(-1)!;
    expect(put.headers).toMatchObject({
      "content-encoding": "aws-chunked",
      "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
      "x-amz-trailer": "x-amz-checksum-crc32",
    });
    expect(simulator.state.objects.get(BUCKET, "streamed.mp4")?.body.equals(video)).toBe(true);
  });

  it("answers an unsatisfiable range with InvalidRange", async () => {
    const client = clientWith();
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: "tiny.mp4", Body: Buffer.from("0123456789") }));
    const tail = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: "tiny.mp4", Range: "bytes=-3" }));
    expect(tail.ContentRange).toBe("bytes 7-9/10");
    expect(await tail.Body?.transformToString()).toBe("789");
    await expect(
      client.send(new GetObjectCommand({ Bucket: BUCKET, Key: "tiny.mp4", Range: "bytes=10-20" })),
    ).rejects.toMatchObject({ name: "InvalidRange", $metadata: { httpStatusCode: 416 } });
  });
});
