import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeMp4 } from "../../../test/mp4-probe.js";
import { type Simulator, startSimulator } from "../../server.js";

let simulator: Simulator;
const headers = { authorization: "Bearer sim-test", "content-type": "application/json" };

beforeAll(async () => {
  simulator = await startSimulator({ port: 0, videoSecondsPerSecond: 0.02 });
});
afterAll(async () => {
  await simulator?.close();
});

const create = (body: unknown) =>
  fetch(`${simulator.url}/v1/videos`, { method: "POST", headers, body: JSON.stringify(body) });
const retrieve = async (id: string) =>
  (await (await fetch(`${simulator.url}/v1/videos/${id}`, { headers })).json()) as {
    status: string;
    progress: number;
    error: { message: string } | null;
  };

async function until(id: string, status: string) {
  for (let tries = 0; tries < 100; tries += 1) {
    const job = await retrieve(id);
    if (job.status === status) return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never ${status}`);
}

describe("simulated OpenAI videos API", () => {
  it("queues, processes and completes a job whose MP4 lasts the seconds asked for", async () => {
    const response = await create({ model: "sora-2", prompt: "a boat", seconds: "10", size: "1280x720" });
    expect(response.status).toBe(200);
    const job = (await response.json()) as { id: string; object: string; status: string; seconds: string };
    expect(job).toMatchObject({ object: "video", status: "queued", seconds: "10", size: "1280x720" });
    await until(job.id, "completed");
    const content = await fetch(`${simulator.url}/v1/videos/${job.id}/content`, { headers });
    expect(content.headers.get("content-type")).toBe("video/mp4");
    expect(probeMp4(Buffer.from(await content.arrayBuffer())).video[0]?.durationSeconds).toBe(10);
  });

  it("refuses content before completion, and forgets a deleted job", async () => {
    const job = (await (await create({ prompt: "slow [sim:video_ms=60000]", seconds: "5" })).json()) as { id: string };
    expect((await fetch(`${simulator.url}/v1/videos/${job.id}/content`, { headers })).status).toBe(400);
    const deleted = await fetch(`${simulator.url}/v1/videos/${job.id}`, { method: "DELETE", headers });
    expect(await deleted.json()).toEqual({ id: job.id, object: "video.deleted", deleted: true });
    expect((await fetch(`${simulator.url}/v1/videos/${job.id}`, { headers })).status).toBe(404);
    const listed = (await (await fetch(`${simulator.url}/_sim/videos`)).json()) as {
      data: { id: string; deleted: boolean }[];
    };
    expect(listed.data.find((entry) => entry.id === job.id)?.deleted).toBe(true);
  });

  it("fails a job on [sim:video_fail] and a create on [sim:status=503]", async () => {
    const job = (await (await create({ prompt: "[sim:video_fail] oops", seconds: "5" })).json()) as { id: string };
    expect((await until(job.id, "failed")).error?.message).toMatch(/Simulated/);
    expect((await create({ prompt: "[sim:status=503]", seconds: "5" })).status).toBe(503);
  });

  it("validates the request like OpenAI", async () => {
    for (const body of [
      { seconds: "5" },
      { prompt: "x", seconds: "0" },
      { prompt: "x", seconds: 5 },
      { prompt: "x", size: "1x1" },
    ]) {
      const response = await create(body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    }
  });
});
