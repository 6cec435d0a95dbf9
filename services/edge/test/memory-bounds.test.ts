import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { exitedProcesses, startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodyBudgetInUse, stallBody } from "./stalled-bodies.js";

// What a request costs edge is bounded by what it weighs, not by its bytes: parsed structure
// counts, a body that stops arriving gives its share back, uploads and stored conversations
// count against the same budget, and the budget holds nothing once no request is open.

let stack: TestStack;
let keys: { paying: string; other: string; broke: string };

beforeAll(async () => {
  stack = await startTestStack();
  const [paying, other, broke] = await Promise.all([
    stack.createAccount({ group: "premium", creditYuan: 200 }),
    stack.createAccount({ group: "premium" }),
    stack.createAccount({ group: "premium", creditYuan: 0 }),
  ]);
  keys = { paying: paying.api_key, other: other.api_key, broke: broke.api_key };
});
afterAll(async () => {
  await stack?.teardown();
});

async function post(path: string, body: unknown, apiKey: string) {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const answer = (await response.json()) as { id?: string; error?: { code: string | null } };
  return { status: response.status, code: answer.error?.code ?? null, id: answer.id };
}

const smallChat = (apiKey: string, content = "hello") =>
  post("/chat/completions", { model: "gpt-4o-mini", max_tokens: 5, messages: [{ role: "user", content }] }, apiKey);

async function expectBudgetEmpty() {
  // Closed sockets reach edge within moments; nothing open may still count.
  await expect.poll(() => bodyBudgetInUse(stack.metricsUrls.edge), { timeout: 10_000, interval: 200 }).toBe(0);
}

describe("memory proportional to what a request costs", () => {
  it("refuses bodies of 650,000 empty messages before parsing them, and edge keeps serving", async () => {
    const messages = `[${Array.from({ length: 650_000 }, () => '{"role":"user","content":""}').join(",")}]`;
    const body = `{"model":"gpt-4o-mini","max_tokens":5,"messages":${messages}}`;
    expect(body.length).toBeGreaterThan(18_000_000);
    const answers = await Promise.all([
      post("/chat/completions", body, keys.paying),
      post("/chat/completions", body, keys.other),
    ]);
    expect(answers.map(({ status, code }) => [status, code])).toEqual([
      [413, "request_too_large"],
      [413, "request_too_large"],
    ]);
    expect(exitedProcesses(stack.processes)).toEqual([]);
    expect((await smallChat(keys.paying)).status).toBe(200);
  }, 60_000);

  it("holds only what a stalled body sent, answers it with a 408, and serves others meanwhile", async () => {
    const stalled = Array.from({ length: 21 }, () =>
      stallBody(stack.baseUrl, "/chat/completions", {
        apiKey: keys.broke,
        contentType: "application/json",
        declaredBytes: 19 * 1024 * 1024,
        sentBytes: 1024,
        prefix: '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"',
      }),
    );
    await sleep(500);
    // What arrived is held, not the 399 MB the stalled bodies announced.
    expect(await bodyBudgetInUse(stack.metricsUrls.edge)).toBeLessThan(1024 * 1024);
    // Another tenant's large body fits beside them.
    const large = "word ".repeat((8 * 1024 * 1024) / 5);
    expect(await smallChat(keys.other, large)).toMatchObject({ status: 200 });
    const answers = await Promise.all(stalled.map(({ answer }) => answer));
    expect(answers.map(({ status }) => status)).toEqual(answers.map(() => 408));
    expect(Math.max(...answers.map(({ afterMs }) => afterMs))).toBeLessThan(15_000);
    await expectBudgetEmpty();
  }, 60_000);

  it("counts multipart uploads against the budget as they arrive, and refuses none for what they only announced", async () => {
    const boundary = "stalledupload";
    const prefix =
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\ngpt-image-2.6-sunburst\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
    const sentBytes = 256 * 1024;
    const uploads = Array.from({ length: 30 }, () =>
      stallBody(stack.baseUrl, "/images/edits", {
        apiKey: keys.broke,
        contentType: `multipart/form-data; boundary=${boundary}`,
        declaredBytes: 49 * 1024 * 1024,
        sentBytes,
        prefix,
      }),
    );
    // The bytes that arrived count (uploads are under the budget), the 1.4 GB announced do not.
    await expect
      .poll(() => bodyBudgetInUse(stack.metricsUrls.edge), { timeout: 4_000, interval: 100 })
      .toBeGreaterThanOrEqual(30 * sentBytes);
    expect(await bodyBudgetInUse(stack.metricsUrls.edge)).toBeLessThan(40 * sentBytes);
    expect((await smallChat(keys.other)).status).toBe(200);
    const answers = await Promise.all(uploads.map(({ answer }) => answer));
    expect(answers.map(({ status }) => status)).toEqual(answers.map(() => 408));
    await expectBudgetEmpty();
  }, 60_000);

  it("checks the model before loading a stored conversation", async () => {
    const body = { model: "no-such-model", input: "hi", previous_response_id: `resp_${"0".repeat(48)}` };
    expect(await post("/responses", body, keys.paying)).toMatchObject({ status: 404, code: "model_not_found" });
  });

  it("gives back what requests held on every path: answered, refused, abandoned, pipelined", async () => {
    const url = new URL(stack.baseUrl);
    const chat = JSON.stringify({
      model: "gpt-4o-mini",
      stream: true,
      messages: [{ role: "user", content: "a long story [sim:tokens=200] [sim:token_latency_ms=20]" }],
    });
    const request = (apiKey: string) =>
      `POST /v1/chat/completions HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${apiKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(chat)}\r\n\r\n${chat}`;
    const open = (text: string) => {
      const socket = connect(Number(url.port), url.hostname);
      socket.on("error", () => {});
      socket.write(text);
      return socket;
    };
    // Requests whose client leaves while edge asks ledger about a key it has not seen yet.
    const freshKeys = await Promise.all(Array.from({ length: 5 }, () => stack.createAccount({ group: "premium" })));
    for (const { api_key } of freshKeys) {
      const socket = open(request(api_key));
      socket.once("connect", () => setTimeout(() => socket.resetAndDestroy(), 1));
    }
    // Pipelined requests behind a long stream, then the connection closes.
    const pipelined = Array.from({ length: 5 }, () => open(request(keys.paying).repeat(3)));
    await sleep(300);
    for (const socket of pipelined) socket.destroy();
    await expectBudgetEmpty();
  }, 60_000);
});
