import { eventually, simulatorRequests, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billedRows, multiplierOf, pngSize, unitCost } from "./media-fixtures.js";

// Qwen-Image through DashScope's asynchronous text-to-image API: the router submits a task and polls
// it within the request, and the client gets OpenAI's images answer, billed per image.
let stack: TestStack;
let client: OpenAI;
let multiplier: number;

// Short, so a task that never ends is given up on quickly; the simulator's tasks end in 300 ms.
const taskTimeoutMs = 3_000;
const model = "qwen-image-plus";
const withRatio = (aspectRatio: string) => ({ aspect_ratio: aspectRatio }) as unknown as Record<string, never>;

/** The DashScope requests (task submissions and polls) that reached the simulator for prompts with the marker. */
async function dashScopeTraffic(marker: string) {
  const requests = await simulatorRequests(stack.simulatorUrl);
  const submitted = requests.filter(
    (request) => request.path.startsWith("/api/v1/services/") && JSON.stringify(request.body).includes(marker),
  );
  return { submitted, polls: requests.filter((request) => request.path.startsWith("/api/v1/tasks/")) };
}

async function failure(call: Promise<unknown>) {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return error as InstanceType<typeof OpenAI.APIError>;
}

beforeAll(async () => {
  stack = await startTestStack({ serviceEnv: { router: { VENDOR_FIRST_BYTE_TIMEOUT_MS: String(taskTimeoutMs) } } });
  const account = await stack.createAccount({ group: "premium" });
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  multiplier = await multiplierOf(stack.databaseUrl, "premium");
});
afterAll(async () => {
  await stack?.teardown();
});

describe("Qwen-Image through /v1/images/generations", () => {
  it("submits an asynchronous task in the size the ratio stands for, polls it, and answers base64, billed per image", async () => {
    const { data, response } = await client.images
      .generate({ model, prompt: "a poster reading 通义 dash-wide", response_format: "b64_json", ...withRatio("16:9") })
      .withResponse();
    expect(data.data).toHaveLength(1);
    expect(pngSize(Buffer.from(data.data![0]!.b64_json!, "base64"))).toEqual({ width: 1664, height: 928 });
    expect(data.created).toBeGreaterThan(0);

    const { submitted, polls } = await dashScopeTraffic("dash-wide");
    expect(submitted).toHaveLength(1);
    expect(submitted[0]!.path).toBe("/api/v1/services/aigc/text2image/image-synthesis");
    expect(submitted[0]!.headers["x-dashscope-async"]).toBe("enable");
    expect(submitted[0]!.body).toEqual({
      model,
      input: { prompt: "a poster reading 通义 dash-wide" },
      parameters: { size: "1664*928", n: 1 },
    });
    expect(polls.length).toBeGreaterThanOrEqual(1);

    const row = await eventually(
      async () => (await billedRows(stack.databaseUrl, response.headers.get("x-request-id")!))[0],
    );
    expect(row).toMatchObject({ model, billed_units: 1, unit: "image" });
    expect(Number(row.cost_micros)).toBe(unitCost(1, 200_000, multiplier));
  });

  it("answers a URL the gateway serves by default, for the snapshot alias too", async () => {
    const answer = await client.images.generate({
      model: "qwen-image-plus-2026-01-09",
      prompt: "a tall tower dash-url",
      size: "1140x1472" as "1024x1024",
    });
    const download = await fetch(answer.data![0]!.url!);
    expect(download.status).toBe(200);
    expect(pngSize(Buffer.from(await download.arrayBuffer()))).toEqual({ width: 1140, height: 1472 });
    const { submitted } = await dashScopeTraffic("dash-url");
    expect(submitted[0]!.body).toMatchObject({ model, parameters: { size: "1140*1472" } });
  });

  it("refuses, before any task is submitted, a size, ratio, count or prompt Qwen-Image does not take", async () => {
    const refusals: [Record<string, unknown>, string][] = [
      [{ size: "1024x1024" }, "size"],
      [withRatio("21:9"), "aspect_ratio"],
      [{ n: 2 }, "n"],
      [{ prompt: `long dash-refused ${"x".repeat(800)}` }, "prompt"],
      [{ quality: "hd" }, "quality"],
    ];
    for (const [fields, param] of refusals) {
      const error = await failure(client.images.generate({ model, prompt: "dash-refused", ...fields }));
      expect(error.status, param).toBe(400);
      expect(error.param).toBe(param);
      expect(error.type).toBe("invalid_request_error");
    }
    expect((await dashScopeTraffic("dash-refused")).submitted).toEqual([]);
  });

  it("passes Alibaba's own refusal of a submission on as an OpenAI-shaped 400, and its overload as a 503", async () => {
    const refused = await failure(client.images.generate({ model, prompt: "dash-submit [sim:status=400]" }));
    expect(refused.status).toBe(400);
    expect(refused.type).toBe("invalid_request_error");
    expect(refused.message).toContain("Simulated bad request");
    const overloaded = await failure(client.images.generate({ model, prompt: "dash-busy [sim:status=503]" }));
    expect(overloaded.status).toBe(503);
    expect(overloaded.type).toBe("server_error");
  });

  it("answers a task Alibaba's moderation failed as a 400 with its reason", async () => {
    const error = await failure(client.images.generate({ model, prompt: "dash-moderated [sim:task_fail]" }));
    expect(error.status).toBe(400);
    expect(error.type).toBe("invalid_request_error");
    expect(error.message).toContain("inappropriate content");
  });

  it("gives up on a task that outlasts the timeout with an OpenAI-shaped 504, submitted once", async () => {
    const error = await failure(client.images.generate({ model, prompt: "dash-stuck [sim:task_ms=600000]" }));
    expect(error.status).toBe(504);
    expect(error.code).toBe("image_task_timeout");
    expect(error.message).toContain("did not finish within 3 s");
    expect((await dashScopeTraffic("dash-stuck")).submitted).toHaveLength(1);
  });
});
