import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../server.js";

let simulator: Simulator;

beforeAll(async () => {
  simulator = await startSimulator({ port: 0, s3: { accessKeyId: "right-key", buckets: ["b"] } });
});
afterAll(async () => {
  await simulator?.close();
});

const signed = (accessKeyId: string) => ({
  authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20250101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=${"0".repeat(64)}`,
  "x-amz-date": "20250101T000000Z",
  "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
});

async function s3Error(response: Response) {
  expect(response.headers.get("content-type")).toBe("application/xml");
  const xml = await response.text();
  return { status: response.status, code: /<Code>(\w+)<\/Code>/.exec(xml)?.[1] };
}

describe("simulated S3 authentication", () => {
  it("answers S3's XML errors to requests without a valid signature", async () => {
    const url = `${simulator.url}/s3/b/some/key.mp4`;
    expect(await s3Error(await fetch(url))).toEqual({ status: 403, code: "AccessDenied" });
    expect(await s3Error(await fetch(url, { headers: { authorization: "Bearer sk-123" } }))).toEqual({
      status: 400,
      code: "AuthorizationHeaderMalformed",
    });
    expect(await s3Error(await fetch(url, { headers: signed("wrong-key") }))).toEqual({
      status: 403,
      code: "InvalidAccessKeyId",
    });
    expect(await s3Error(await fetch(url, { headers: signed("right-key") }))).toEqual({
      status: 403,
      code: "SignatureDoesNotMatch",
    });
    // HEAD answers carry no body, as S3's do.
    const head = await fetch(url, { method: "HEAD" });
    expect(head.status).toBe(403);
    expect(await head.text()).toBe("");
  });

  it("logs an object upload by its size, not its bytes", async () => {
    await fetch(`${simulator.url}/s3/b/key.mp4`, { method: "PUT", body: Buffer.alloc(2048) });
    const logged = simulator.state.requests.list().find((request) => request.path === "/s3/b/key.mp4");
    expect(logged).toMatchObject({ method: "PUT", status: 403, body: { bytes: 2048 } });
  });
});

describe("simulated S3 control API", () => {
  it("lists and clears the stored objects", async () => {
    simulator.state.objects.put("b", "videos/a.mp4", Buffer.alloc(3), "video/mp4");
    const listed = await (await fetch(`${simulator.url}/_sim/s3`)).json();
    expect(listed).toEqual({
      data: [{ bucket: "b", key: "videos/a.mp4", size: 3, contentType: "video/mp4" }],
      pending_uploads: 0,
    });
    expect(await (await fetch(`${simulator.url}/_sim/s3`, { method: "DELETE" })).json()).toEqual({ cleared: 1 });
    expect(simulator.state.objects.list()).toEqual([]);
  });
});
