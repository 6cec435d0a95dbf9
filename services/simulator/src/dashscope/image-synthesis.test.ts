import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../server.js";

let simulator: Simulator;

beforeAll(async () => {
  simulator = await startSimulator({ port: 0 });
});
afterAll(async () => {
  await simulator.close();
});

const key = { authorization: "Bearer sk-test" };

// biome-ignore lint/suspicious/noExplicitAny: the vendor's answers are read field by field
type Json = any;
const json = (response: Response): Promise<Json> => response.json();

function submit(body: unknown, headers: Record<string, string> = { ...key, "x-dashscope-async": "enable" }) {
  return fetch(`${simulator.url}/api/v1/services/aigc/text2image/image-synthesis`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const task = (id: string) => fetch(`${simulator.url}/api/v1/tasks/${id}`, { headers: key }).then(json);
const qwen = (prompt: string, parameters: Record<string, unknown> = {}) => ({
  model: "qwen-image-plus",
  input: { prompt },
  parameters: { size: "1664*928", n: 1, ...parameters },
});

describe("DashScope's asynchronous text-to-image API", () => {
  it("answers a PENDING task id, then PENDING and RUNNING while it runs", async () => {
    const submitted = await submit(qwen("a long lake [sim:task_ms=600000]"));
    expect(submitted.status).toBe(200);
    const body = await json(submitted);
    expect(body).toEqual({
      output: { task_status: "PENDING", task_id: expect.any(String) },
      request_id: expect.any(String),
    });
    const id = body.output.task_id as string;
    expect((await task(id)).output).toMatchObject({
      task_id: id,
      task_status: "PENDING",
      submit_time: expect.any(String),
    });
    expect((await task(id)).output).toMatchObject({ task_status: "RUNNING", task_metrics: { TOTAL: 1, SUCCEEDED: 0 } });
  });

  it("ends a task SUCCEEDED with a URL to a PNG of the size asked", async () => {
    const { output } = await json(await submit(qwen("a lake [sim:task_ms=0]")));
    const done = await task(output.task_id);
    expect(done.output).toMatchObject({
      task_status: "SUCCEEDED",
      task_metrics: { TOTAL: 1, SUCCEEDED: 1, FAILED: 0 },
    });
    expect(done.output.end_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
    expect(done.usage).toEqual({ image_count: 1 });
    const image = await fetch(done.output.results[0].url);
    expect(image.headers.get("content-type")).toBe("image/png");
    const png = Buffer.from(await image.arrayBuffer());
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1664, 928]);
  });

  it("ends a task FAILED with DashScope's code and message, and answers an unknown task UNKNOWN", async () => {
    const { output } = await json(await submit(qwen("[sim:task_fail] [sim:task_ms=0]")));
    expect((await task(output.task_id)).output).toMatchObject({
      task_status: "FAILED",
      code: "DataInspectionFailed",
      message: expect.any(String),
    });
    expect((await task("no-such-task")).output).toEqual({ task_id: "no-such-task", task_status: "UNKNOWN" });
  });

  it("refuses in DashScope's flat error shape: no key, no async header, a size, count or model it lacks", async () => {
    const cases: [Response, number, string][] = [
      [await submit(qwen("x"), { "x-dashscope-async": "enable" }), 401, "InvalidApiKey"],
      [await submit(qwen("x"), key), 403, "AccessDenied"],
      [await submit(qwen("x", { size: "1024x1024" })), 400, "InvalidParameter"],
      [await submit(qwen("x", { n: 2 })), 400, "InvalidParameter"],
      [await submit({ ...qwen("x"), model: "qwen-plus" }), 400, "InvalidParameter"],
    ];
    for (const [response, status, code] of cases) {
      expect(response.status).toBe(status);
      expect(await json(response)).toEqual({ code, message: expect.any(String), request_id: expect.any(String) });
    }
  });

  it("draws Wan's images at any width and height from 512 to 1440, up to four a task, and refuses others", async () => {
    const wan = (size: string, n: number) => ({
      model: "wan2.2-t2i-flash",
      input: { prompt: "x" },
      parameters: { size, n },
    });
    const drawn = await json(await submit(wan("1440*512", 4)));
    await new Promise((resolve) => setTimeout(resolve, 350));
    const ended = await task(drawn.output.task_id);
    expect(ended.output.task_status).toBe("SUCCEEDED");
    expect(ended.output.results.map((result: Json) => new URL(result.url).pathname)).toEqual(
      Array(4).fill(expect.stringMatching(/-1440x512\.png$/)),
    );
    expect(ended.usage).toEqual({ image_count: 4 });
    for (const refused of [wan("1441*1024", 1), wan("1024*511", 1), wan("1024*1024", 5)]) {
      const response = await submit(refused);
      expect(response.status).toBe(400);
      expect((await json(response)).code).toBe("InvalidParameter");
    }
  });
});
