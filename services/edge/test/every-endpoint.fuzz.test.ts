import { connect } from "node:net";
import { startTestStack, type TestStack } from "@gateway/stack";
import fc from "fast-check";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  abandonedUploads,
  endpointRequests,
  type FuzzRequest,
  toldVendorToFail,
  unauthenticated,
} from "./fuzz-requests.js";

// The fuzz suite: generated requests, plausible and hostile, to every endpoint of the real
// stack. Whatever arrives, the answer is below 500 unless the simulated vendor was told to
// fail, every 4xx carries its ingress's error body (OpenAI's, Anthropic's on /v1/messages, Google's
// for Gemini), streams are well formed, and no process dies.
// The slowest case of each endpoint is printed at the end.
// FUZZ_RUNS sets the cases per endpoint (default 40: the suite then takes about a minute on
// two cores); FUZZ_SEED replays a run (the seed is printed when a property fails).

const runs = Number(process.env.FUZZ_RUNS ?? 40);
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

let stack: TestStack;
let edgeOrigin: string;
const keys = new Map<string, string>();
const known = { responses: [] as string[], videos: [] as string[] };
// The requests most recently sent, to name the culprit when a process dies a moment after answering.
const recent: string[] = [];
const deaths: string[] = [];
// Each endpoint's slowest case, reported at the end: where a request's size buys the most time.
const slowest = new Map<string, { ms: number; request: string }>();

const describeRequest = (request: FuzzRequest) =>
  `${request.method} ${request.path.slice(0, 300)} [${request.mangling}] ${JSON.stringify(request.headers).slice(0, 300)} ${JSON.stringify(request.body?.toString("utf8").slice(0, 600) ?? "")}`;

beforeAll(async () => {
  stack = await startTestStack({
    env: {
      // Vendor failures asked for by a case must not open a channel's circuit for the cases after it.
      CIRCUIT_FAILURE_THRESHOLD: "1000000",
      ROUTER_RETRY_BASE_MS: "5",
      ROUTER_RETRY_MAX_MS: "20",
      SIMULATOR_VIDEO_SECONDS_PER_SECOND: "0.01",
    },
  });
  edgeOrigin = new URL(stack.baseUrl).origin;
  for (const process of Object.values(stack.processes)) {
    process.child.once("exit", (code, signal) => {
      deaths.push(
        `${process.name} exited (${code ?? signal}) just after:\n${recent.join("\n")}\n${process.output.slice(-15).join("\n")}`,
      );
    });
  }
  const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: await keyFor("setup"), maxRetries: 0 });
  known.responses.push((await client.responses.create({ model: "gpt-4o-mini", input: "remember me" })).id);
  const video = await fetch(`${stack.baseUrl}/videos/generations`, {
    method: "POST",
    headers: { authorization: `Bearer ${await keyFor("setup")}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "sora-2", prompt: "a boat", async: true }),
  });
  known.videos.push(((await video.json()) as { id: string }).id);
});
afterAll(async () => {
  const report = [...slowest].map(([endpoint, { ms, request }]) => `${endpoint}: ${Math.round(ms)} ms ${request}`);
  if (report.length > 0) console.info(`Slowest case per endpoint:\n${report.join("\n")}`);
  await stack?.teardown();
});

/** A premium key with credit to spare, one per endpoint, so one endpoint's rate limits never starve another's cases. */
async function keyFor(endpoint: string): Promise<string> {
  let key = keys.get(endpoint);
  if (!key) {
    key = (await stack.createAccount({ group: "premium", creditYuan: 1_000_000 })).api_key;
    keys.set(endpoint, key);
  }
  return key;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

async function send(request: FuzzRequest, apiKey: string | undefined): Promise<Answer> {
  const origin = request.target === "ledger" ? stack.adminUrl : edgeOrigin;
  const headers = { ...(apiKey && { authorization: `Bearer ${apiKey}` }), ...request.headers };
  const response = await fetch(`${origin}${request.path}`, {
    method: request.method,
    headers,
    body: request.body && request.method !== "GET" ? new Uint8Array(request.body) : undefined,
    signal: AbortSignal.timeout(60_000),
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    text: await response.text(),
  };
}

/** Declares the whole body, sends part of it, and hangs up, as a client that crashed mid-upload would. */
function abandon(request: FuzzRequest, apiKey: string): Promise<void> {
  const url = new URL(`${edgeOrigin}${request.path}`);
  const body = request.body ?? Buffer.alloc(0);
  const head = [
    `${request.method} ${url.pathname} HTTP/1.1`,
    `host: ${url.host}`,
    `authorization: Bearer ${apiKey}`,
    ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`),
    `content-length: ${body.length}`,
    "",
    "",
  ].join("\r\n");
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(head);
      socket.end(body.subarray(0, request.cutAt));
    });
    socket.on("error", () => resolve());
    socket.on("close", () => resolve());
    socket.resume();
    setTimeout(() => socket.destroy(), 200);
  });
}

function expectOpenAIError(answer: Answer, context: string) {
  const parsed = JSON.parse(answer.text) as { error?: Record<string, unknown> };
  expect(Object.keys(parsed), context).toEqual(["error"]);
  const { message, type, param, code } = parsed.error ?? {};
  expect(typeof message === "string" && message.length > 0, context).toBe(true);
  expect(typeof type, context).toBe("string");
  expect(param === null || typeof param === "string", context).toBe(true);
  expect(code === null || typeof code === "string", context).toBe(true);
}

/** Anthropic's error body, which the Messages ingress answers with. */
function expectAnthropicError(answer: Answer, context: string) {
  const parsed = JSON.parse(answer.text) as { type?: string; error?: Record<string, unknown> };
  expect(parsed.type, context).toBe("error");
  const { message, type } = parsed.error ?? {};
  expect(typeof message === "string" && message.length > 0, context).toBe(true);
  expect(typeof type, context).toBe("string");
}

/** Google's error body (google.rpc.Status), which the Gemini ingress answers with. */
function expectGoogleError(answer: Answer, context: string) {
  const parsed = JSON.parse(answer.text) as { error?: Record<string, unknown> };
  expect(Object.keys(parsed), context).toEqual(["error"]);
  const { code, message, status } = parsed.error ?? {};
  expect(code, context).toBe(answer.status);
  expect(typeof message === "string" && message.length > 0, context).toBe(true);
  expect(status, context).toMatch(/^[A-Z_]+$/);
}

/** Gemini's paths: all of /v1beta, and its `models/{model}:{action}` calls under /v1. */
const isGeminiRequest = ({ method, path }: FuzzRequest) =>
  path.startsWith("/v1beta/") || (method === "POST" && /^\/v1\/models\/[^/?]+:[A-Za-z]+(\?|$)/.test(path));

/** Every frame of an SSE answer is JSON (or OpenAI's [DONE]); an error frame only when the vendor was told to fail. */
function expectWellFormedStream(answer: Answer, vendorFailed: boolean, context: string) {
  for (const line of answer.text.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const frame = JSON.parse(line.slice(6)) as { error?: unknown; type?: string };
    if (!vendorFailed) {
      expect(frame.error, context).toBeUndefined();
      expect(["error", "response.failed"], context).not.toContain(frame.type);
    }
  }
}

function checkAnswer(request: FuzzRequest, answer: Answer) {
  const vendorFailed = toldVendorToFail(request);
  const context = `${answer.status} ${answer.text.slice(0, 300)}\nfor ${describeRequest(request)}`;
  if (!vendorFailed) expect(answer.status, context).toBeLessThan(500);
  if (request.mangling === "no usable key") expect([401, 429], context).toContain(answer.status);
  if (answer.status >= 400 && request.method !== "HEAD") {
    // Node's parser refuses an over-long URL or header before any route knows the ingress.
    const refusedByParser = answer.status === 414 || answer.status === 431;
    if (isGeminiRequest(request) && !refusedByParser) expectGoogleError(answer, context);
    else if (request.path.startsWith("/v1/messages")) expectAnthropicError(answer, context);
    else expectOpenAIError(answer, context);
  } else if (answer.contentType.startsWith("text/event-stream")) expectWellFormedStream(answer, vendorFailed, context);
  else if (answer.contentType.startsWith("application/json"))
    expect(() => JSON.parse(answer.text), context).not.toThrow();
}

function expectEveryProcessAlive() {
  if (deaths.length > 0) throw new Error(`a process died: ${deaths.join("\n\n")}`);
}

async function exercise(endpoint: string, request: FuzzRequest) {
  expectEveryProcessAlive();
  recent.push(describeRequest(request).slice(0, 400));
  if (recent.length > 3) recent.shift();
  const apiKey = request.mangling === "no usable key" ? undefined : await keyFor(endpoint);
  if (request.cutAt !== undefined) return abandon(request, apiKey!);
  const started = performance.now();
  const answer = await send(request, apiKey);
  const ms = performance.now() - started;
  if (ms > (slowest.get(endpoint)?.ms ?? -1))
    slowest.set(endpoint, { ms, request: describeRequest(request).slice(0, 200) });
  checkAnswer(request, answer);
}

/** Runs a property with the suite's seed and size, and says how to replay a failure. */
async function fuzz(endpoint: string, requests: fc.Arbitrary<FuzzRequest>, numRuns = runs) {
  try {
    await fc.assert(
      fc.asyncProperty(requests, (request) => exercise(endpoint, request)),
      { numRuns, seed },
    );
  } catch (error) {
    (error as Error).message = `${(error as Error).message}\nReplay with FUZZ_SEED=${seed} FUZZ_RUNS=${runs}.`;
    throw error;
  } finally {
    // A process that died with the last case is blamed on it, not on the next endpoint's first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expectEveryProcessAlive();
  }
}

describe("every endpoint under generated requests", () => {
  const timeout = 60_000 + runs * 1_500;
  const generators = endpointRequests({ responses: () => known.responses, videos: () => known.videos });
  for (const [endpoint, requests] of Object.entries(generators)) {
    it(`${endpoint}: below 500, the ingress's errors, no process dies`, { timeout }, () => fuzz(endpoint, requests));
  }

  it("requests without a usable key: 401 (or the invalid-key slowdown's 429), whatever the body", { timeout }, () =>
    fuzz("unauthenticated", unauthenticated),
  );

  it("clients that hang up mid-body stop no process", { timeout }, () =>
    fuzz("abandoned", abandonedUploads, Math.ceil(runs / 2)),
  );

  it("every process is still up and serves normal requests", async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    expectEveryProcessAlive();
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey: await keyFor("after"), maxRetries: 0 });
    const chat = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "still alive?" }],
    });
    expect(chat.choices[0]!.message.content).toMatch(/\w/);
    const stream = await client.chat.completions.create({
      model: "claude-sonnet-4-6",
      messages: [{ role: "user", content: "still streaming?" }],
      stream: true,
    });
    let streamed = "";
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    expect(streamed).toMatch(/\w/);
    const response = await client.responses.create({ model: "gemini-2.5-flash", input: "still answering?" });
    expect(response.output_text).toMatch(/\w/);
    const models = await client.models.list();
    expect(models.data.length).toBeGreaterThan(0);
    const balance = await fetch(`${stack.adminUrl}/v1/account/balance`, {
      headers: { authorization: `Bearer ${await keyFor("after")}` },
    });
    expect(balance.status).toBe(200);
  });
});
