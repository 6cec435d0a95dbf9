import {
  answersNormally,
  crashRequests,
  exitedProcesses,
  startTestStack,
  type TestStack,
  uncaughtErrorLines,
} from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let stack: TestStack;
let keys: { apiKey: string; brokeKey: string };

beforeAll(async () => {
  stack = await startTestStack();
  const [paying, broke] = await Promise.all([
    stack.createAccount({ group: "premium" }),
    stack.createAccount({ group: "premium", creditYuan: 0 }),
  ]);
  keys = { apiKey: paying.api_key, brokeKey: broke.api_key };
});
afterAll(async () => {
  await stack?.teardown();
});

async function expectStillServing() {
  expect(exitedProcesses(stack.processes)).toEqual([]);
  expect(await answersNormally(stack.baseUrl, keys.apiKey)).toBe(true);
  expect(exitedProcesses(stack.processes)).toEqual([]);
  expect(uncaughtErrorLines(stack.processes)).toEqual([]);
}

describe("no request stops a process", () => {
  it.each(crashRequests.map((request) => [request.name, request] as const))(
    "answers %s with an OpenAI-shaped error and keeps serving",
    async (_name, request) => {
      const response = await request.send(stack.baseUrl, keys);
      const body = (await response.json()) as { error: Record<string, unknown> };
      expect(response.status).toBe(request.status);
      expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
      await expectStillServing();
    },
  );

  it("ends a chat stream the vendor cuts after output with an error frame", async () => {
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: keys.apiKey, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      stream: true,
      messages: [{ role: "user", content: "tell me a long story [sim:cut_after=3]" }],
    });
    const read = async () => {
      for await (const _chunk of stream) {
        // Reading until the error frame.
      }
    };
    await expect(read()).rejects.toThrow();
    await expectStillServing();
  });

  it("ends a Responses stream the vendor cuts after output with response.failed", async () => {
    const response = await fetch(`${stack.baseUrl}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys.apiKey}`, "content-type": "application/json" },
      // Translated onto chat; a relayed stream (OpenAI's models) ends with OpenAI's error event instead.
      body: JSON.stringify({ model: "qwen-plus", input: "a long story [sim:cut_after=3]", stream: true }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("event: response.failed");
    expect(text).not.toContain("event: response.completed");
    await expectStillServing();
  });

  it("cancels the call when the client leaves in the middle of a stream", async () => {
    const controller = new AbortController();
    const response = await fetch(`${stack.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        stream: true,
        messages: [{ role: "user", content: "a long story [sim:tokens=400] [sim:token_latency_ms=20]" }],
      }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expectStillServing();
  });

  // Each maximal body costs edge (and router) several times its size in heap: enough of them at
  // once would pass the heap limit the services run with and stop edge for every tenant.
  it("takes maximal bodies a few at a time and refuses the rest with a 429, then serves one again", async () => {
    const content = "word ".repeat(Math.floor((19.5 * 1024 * 1024) / 5));
    const body = JSON.stringify({ model: "gpt-4o-mini", max_tokens: 5, messages: [{ role: "user", content }] });
    const chat = async () => {
      const response = await fetch(`${stack.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${keys.apiKey}`, "content-type": "application/json" },
        body,
      });
      const answer = (await response.json()) as { error?: { code: string } };
      return { status: response.status, code: answer.error?.code };
    };
    const answers = await Promise.all(Array.from({ length: 12 }, chat));
    for (const { status } of answers) expect([200, 429]).toContain(status);
    expect(answers.filter(({ code }) => code === "too_many_large_requests").length).toBeGreaterThan(0);
    await expectStillServing();
    // Every refused and finished body gave its bytes back.
    expect((await chat()).code).not.toBe("too_many_large_requests");
  }, 120_000);
});
