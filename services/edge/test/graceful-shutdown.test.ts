import { once } from "node:events";
import { healthService } from "@gateway/platform";
import {
  eventually,
  startService,
  startTestStack,
  type TestStack,
  type UsageRecordRow,
  usageRecordsOf,
} from "@gateway/stack";
import { type Client, credentials, makeGenericClientConstructor } from "@grpc/grpc-js";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// SIGTERM to edge and router while streams are running (docs/operations.md, "Shutdown and
// draining"): the streams finish whole, new requests are refused, the process exits 0 and
// every usage event reaches ledger once.

const TOKENS = 20;
// 20 tokens 150 ms apart: a stream of about 3 s, long enough to send a signal into.
const slowPrompt = (label: string, tokens = TOKENS) => `${label} [sim:tokens=${tokens}] [sim:token_latency_ms=150]`;
// A stream of about 9 s, which outlives a grace period of 2 s.
const LONG_TOKENS = 60;
const LONG_GRACE = { SHUTDOWN_GRACE_MS: "20000" };
const SHORT_GRACE = { SHUTDOWN_GRACE_MS: "2000" };

let stack: TestStack;
let client: OpenAI;

beforeAll(async () => {
  stack = await startTestStack({
    // Long enough for the probes below to see a draining process that still listens.
    env: { SHUTDOWN_READINESS_DELAY_MS: "1000", ...LONG_GRACE },
  });
  const account = await stack.createAccount({ creditYuan: 10 });
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
}, 120_000);
afterAll(async () => {
  await stack?.teardown();
}, 60_000);

const HealthClient = makeGenericClientConstructor(healthService, "Health");

/** A health client with no service token, as a Kubernetes gRPC probe calls. */
function healthClient(port: number): Client & Record<string, (...args: unknown[]) => unknown> {
  return new HealthClient(`127.0.0.1:${port}`, credentials.createInsecure()) as never;
}

function healthCheck(port: number, service = ""): Promise<string> {
  const health = healthClient(port);
  return new Promise<string>((resolve, reject) =>
    health.check!({ service }, { deadline: Date.now() + 2_000 }, (error: Error | null, answer?: { status: string }) => {
      health.close();
      if (error) reject(error);
      else resolve(answer!.status);
    }),
  ).finally(() => health.close());
}

/** A slow streamed chat through the SDK, read up to its first content chunk. */
async function startSdkStream(label: string, tokens = TOKENS) {
  const { data: stream, response } = await client.chat.completions
    .create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: slowPrompt(label, tokens) }],
      stream: true,
      stream_options: { include_usage: true },
    })
    .withResponse();
  const chunks = stream[Symbol.asyncIterator]();
  const first = await chunks.next();
  expect(first.done).toBe(false);
  const rest = (async () => {
    let contentChunks = first.value?.choices[0]?.delta.content ? 1 : 0;
    let finish: string | null | undefined;
    let completionTokens: number | undefined;
    try {
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
        if (next.value.choices[0]?.delta.content) contentChunks += 1;
        finish = next.value.choices[0]?.finish_reason ?? finish;
        completionTokens = next.value.usage?.completion_tokens ?? completionTokens;
      }
    } catch (error) {
      // The stream's error frame, as the SDK raises it.
      return { contentChunks, error: error instanceof OpenAI.APIError ? error.code : String(error) };
    }
    return { contentChunks, finish, completionTokens };
  })();
  return { requestId: response.headers.get("x-request-id")!, rest };
}

/** The same, over plain HTTP, to see the wire's last frame. */
async function startRawStream(label: string, tokens = TOKENS) {
  const response = await fetch(`${stack.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: slowPrompt(label, tokens) }],
      stream: true,
    }),
  });
  expect(response.status).toBe(200);
  return { requestId: response.headers.get("x-request-id")!, text: response.text() };
}

/** A new request while a process drains: refused with a retryable 503, or its connection refused. */
async function refusedRequest(): Promise<{ status: number | undefined; connection: string | null } | undefined> {
  try {
    const response = await fetch(`${stack.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "during the drain" }] }),
    });
    const body = (await response.json()) as { error?: { code?: string } };
    if (response.status === 200) return undefined;
    expect(response.status).toBe(503);
    expect(body.error?.code).toBe("service_unavailable");
    return { status: response.status, connection: response.headers.get("connection") };
  } catch (error) {
    const reason = String((error as Error).cause ?? error);
    // Only a refused connection is an answer. Anything else (a reset, "other side closed") is a
    // pooled keep-alive connection the draining server closed under this request, the client
    // pool's race: try again, on a new connection.
    if (!/ECONNREFUSED/.test(reason)) return undefined;
    return { status: undefined, connection: null };
  }
}

/** Exactly one usage record for the request, once ledger has it. */
async function billedOnce(requestId: string): Promise<UsageRecordRow> {
  const records = await eventually(async () => {
    const rows = await usageRecordsOf(stack.databaseUrl, requestId);
    return rows.length > 0 ? rows : undefined;
  }, 30_000);
  // A duplicate would arrive with the first: ledger consumes in batches of 100 ms.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await usageRecordsOf(stack.databaseUrl, requestId)).toHaveLength(records.length);
  expect(records).toHaveLength(1);
  return records[0]!;
}

/** Starts the service again on its port, with `env` over the stack's. */
async function restart(name: "edge" | "router", env: NodeJS.ProcessEnv) {
  const previous = stack.processes[name];
  const port =
    name === "edge" ? { GATEWAY_PORT: String(previous.ports.http) } : { ROUTER_PORT: String(previous.ports.grpc) };
  stack.processes[name] = await startService(name, previous.entry, { ...previous.env, ...port, ...env });
  // Edge's channel to a restarted router reconnects after its back-off.
  const readiness = `${new URL(stack.baseUrl).origin}/readyz`;
  await eventually(async () => ((await fetch(readiness)).ok ? true : undefined), 30_000, 200);
}

/** A stream cut at the end of the grace period: an error frame, and the delivered part billed once. */
async function expectCutAndBilled(sdk: Awaited<ReturnType<typeof startSdkStream>>) {
  const cut = await sdk.rest;
  expect(cut).toMatchObject({ error: "service_unavailable" });
  expect(cut.contentChunks).toBeLessThan(LONG_TOKENS);
  const record = await billedOnce(sdk.requestId);
  expect(record.completion_tokens).toBeGreaterThan(0);
  expect(record.completion_tokens).toBeLessThan(LONG_TOKENS);
}

describe("graceful shutdown", () => {
  it("answers the gRPC health protocol on router, ledger and video without a service token", async () => {
    const { router, ledger, video } = stack.processes;
    expect(await healthCheck(router.ports.grpc!)).toBe("SERVING");
    expect(await healthCheck(router.ports.grpc!, "gateway.router.v1.RouterService")).toBe("SERVING");
    expect(await healthCheck(ledger.ports.grpc!)).toBe("SERVING");
    expect(await healthCheck(video.ports.grpc!)).toBe("SERVING");
  });

  it("finishes edge's streams on SIGTERM, refuses new requests, exits 0 and bills each stream once", async () => {
    const edge = stack.processes.edge;
    const origin = new URL(stack.baseUrl).origin;
    const sdk = await startSdkStream("edge drain sdk");
    const raw = await startRawStream("edge drain raw");
    const exited = once(edge.child, "exit");

    edge.child.kill("SIGTERM");
    // Within the readiness delay: the signal needs only to reach the process.
    const readiness = await eventually(
      async () => {
        const response = await fetch(`${origin}/readyz`);
        return response.status === 503 ? response.json() : undefined;
      },
      1_000,
      20,
    );
    expect(readiness).toEqual({ status: "draining" });
    // After the readiness delay, new requests are answered 503 with the connection closed.
    // Edge still listens while it drains, so a straggler gets an answer rather than a refused connection.
    expect(await eventually(refusedRequest, 10_000, 100)).toEqual({ status: 503, connection: "close" });

    expect(await sdk.rest).toEqual({ contentChunks: TOKENS, finish: "stop", completionTokens: TOKENS });
    expect(await raw.text).toMatch(/"finish_reason":"stop"[\s\S]*data: \[DONE\]\n\n$/);
    const [code] = await exited;
    expect(code).toBe(0);

    for (const requestId of [sdk.requestId, raw.requestId]) {
      const record = await billedOnce(requestId);
      expect(record.completion_tokens).toBe(TOKENS);
      expect(record.outcome).toBe("ok");
    }
    await restart("edge", SHORT_GRACE);
  }, 90_000);

  it("cuts an edge stream that outlives the grace period with an error frame and still bills it", async () => {
    const edge = stack.processes.edge;
    const sdk = await startSdkStream("edge cut sdk", LONG_TOKENS);
    const raw = await startRawStream("edge cut raw", LONG_TOKENS);
    const exited = once(edge.child, "exit");
    edge.child.kill("SIGTERM");
    await expectCutAndBilled(sdk);
    expect(await raw.text).toMatch(/data: \{"error":\{[^\n]*"code":"service_unavailable"[^\n]*\}\}\n\n$/);
    expect((await billedOnce(raw.requestId)).completion_tokens).toBeGreaterThan(0);
    const [code] = await exited;
    expect(code).toBe(0);
    await restart("edge", LONG_GRACE);
  }, 90_000);

  it("finishes router's streams on SIGTERM while its health says NOT_SERVING, exits 0 and bills once", async () => {
    const router = stack.processes.router;
    const port = router.ports.grpc!;
    const watcher = healthClient(port);
    const watch = watcher.watch!({ service: "" }) as NodeJS.EventEmitter;
    const watched: string[] = [];
    watch.on("data", (answer: { status: string }) => watched.push(answer.status));
    const watchEnded = once(watch, "status") as Promise<[{ code: number }]>;
    const sdk = await startSdkStream("router drain sdk");
    const exited = once(router.child, "exit");

    router.child.kill("SIGTERM");
    expect(await eventually(async () => ((await healthCheck(port)) === "NOT_SERVING" ? true : undefined))).toBe(true);
    await eventually(async () => (watched.includes("NOT_SERVING") ? true : undefined));
    expect(watched[0]).toBe("SERVING");
    await eventually(refusedRequest, 10_000, 100);
    // Router ends the watch (a call that never finishes) once it takes no new calls.
    expect((await watchEnded)[0].code).toBe(0);
    watcher.close();

    expect(await sdk.rest).toEqual({ contentChunks: TOKENS, finish: "stop", completionTokens: TOKENS });
    const [code] = await exited;
    expect(code).toBe(0);
    const record = await billedOnce(sdk.requestId);
    expect(record.completion_tokens).toBe(TOKENS);
    expect(record.outcome).toBe("ok");
    await restart("router", SHORT_GRACE);
  }, 90_000);

  it("cuts a router stream that outlives the grace period and still reports its usage before exiting", async () => {
    const router = stack.processes.router;
    const sdk = await startSdkStream("router cut sdk", LONG_TOKENS);
    const exited = once(router.child, "exit");
    router.child.kill("SIGTERM");
    await expectCutAndBilled(sdk);
    const [code] = await exited;
    expect(code).toBe(0);
  }, 90_000);

  it("reports NOT_SERVING from ledger and video as soon as they drain, then exits 0", async () => {
    for (const name of ["video", "ledger"] as const) {
      const service = stack.processes[name];
      const exited = once(service.child, "exit");
      service.child.kill("SIGTERM");
      const port = service.ports.grpc!;
      expect(await eventually(async () => ((await healthCheck(port)) === "NOT_SERVING" ? true : undefined))).toBe(true);
      const [code] = await exited;
      expect(code).toBe(0);
    }
  }, 60_000);
});
