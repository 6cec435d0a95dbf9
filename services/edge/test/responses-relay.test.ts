import { readFileSync } from "node:fs";
import { priceUsage } from "@gateway/billing";
import { responseErrors, responseStreamEventErrors } from "@gateway/openai-spec";
import {
  balanceMicrosOf,
  eventually,
  queryRows,
  queueSimulatorFault,
  type SimulatedRequest,
  simulatorRequests,
  startTestStack,
  type TestStack,
  usageRecordOf,
} from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shippedPrice } from "./shipped-catalogue.js";

// OpenAI's models on /v1/responses are relayed to OpenAI's own Responses API (the simulator's):
// the body as the client wrote it, the answer and its events as the vendor wrote them.

let stack: TestStack;
let account: { account_id: string; api_key: string };
let client: OpenAI;

beforeAll(async () => {
  stack = await startTestStack();
  account = await stack.createAccount({ group: "premium", creditYuan: 1_000 });
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.teardown();
});

const codexTurn = JSON.parse(
  readFileSync(new URL("./captures/codex-0.171-turn-1.json", import.meta.url), "utf8"),
) as Record<string, unknown> & { input: { content: { text: string }[] }[]; tools: unknown[] };

// What other Codex configurations add to the captured turn: apply_patch as a custom (grammar) tool, tool search.
const applyPatch = {
  type: "custom",
  name: "apply_patch",
  description: "Use the `apply_patch` tool to edit files.",
  format: {
    type: "grammar",
    syntax: "lark",
    definition: 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF',
  },
};
const toolSearch = { type: "tool_search", execution: "server" };

/**
 * A Codex turn asking `prompt`, as text formatted the way no JSON.stringify would write it (one-space
 * indents, a number with a trailing zero, a \u escape) and with a field no OpenAI release knows yet.
 */
function codexRequest(prompt: string, changes: Record<string, unknown> = {}): string {
  const body = structuredClone(codexTurn);
  body.input.at(-1)!.content[0]!.text = prompt;
  body.tools = [applyPatch, ...body.tools, toolSearch];
  Object.assign(body, { text: { verbosity: "low" } }, changes);
  const text = JSON.stringify(body, null, 1);
  return `${text.slice(0, -2)},\n "gateway_future_field": {"ratio": 1.50, "note": "caf\\u00e9"}\n}`;
}

// biome-ignore lint/suspicious/noExplicitAny: the assertions themselves check the shape of response bodies
const json = async (response: Response): Promise<any> => response.json();

const post = (text: string, apiKey = account.api_key) =>
  fetch(`${stack.baseUrl}/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: text,
  });

async function upstreamWith(marker: string): Promise<SimulatedRequest[]> {
  const requests = await simulatorRequests(stack.simulatorUrl);
  return requests.filter((request) => request.bodyText.includes(marker));
}

interface StreamedEvent {
  name: string;
  data: Record<string, unknown> & { type: string };
  receivedAt: number;
}

/** The SSE events of a response, each with when its bytes arrived; every one must be valid in OpenAI's schema. */
async function readEvents(response: Response): Promise<StreamedEvent[]> {
  const events: StreamedEvent[] = [];
  const decoder = new TextDecoder();
  let pending = "";
  for await (const bytes of response.body!) {
    pending += decoder.decode(bytes, { stream: true });
    const blocks = pending.split("\n\n");
    pending = blocks.pop()!;
    for (const block of blocks) {
      const name = /^event: (.*)$/m.exec(block)?.[1] ?? "";
      const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!);
      expect(responseStreamEventErrors(data), name).toEqual([]);
      events.push({ name, data, receivedAt: Date.now() });
    }
  }
  return events;
}

const reasoningTurn = (marker: string, changes: Record<string, unknown> = {}) =>
  codexRequest(`Read hello.txt and tell me what it says ${marker}`, {
    reasoning: { effort: "low", summary: "auto" },
    ...changes,
  });

describe("OpenAI models on /v1/responses, relayed to OpenAI's Responses API", () => {
  it("sends a Codex request to the vendor byte for byte and answers its JSON as the vendor wrote it", async () => {
    const sent = codexRequest("Read hello.txt relay-bytes-json", { stream: false });
    const answer = await post(sent);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toContain("application/json");
    expect(answer.headers.get("x-request-id")).toBeTruthy();
    const body = await json(answer);
    expect(responseErrors(body)).toEqual([]);
    expect(body).toMatchObject({ object: "response", status: "completed", model: "gpt-5", store: false });
    const [upstream] = await upstreamWith("relay-bytes-json");
    expect(upstream!.path).toBe("/v1/responses");
    expect(upstream!.bodyText).toBe(sent);
    // The vendor saw the channel's key, never the client's.
    expect(upstream!.headers.authorization).toMatch(/^Bearer sim-/);
  });

  it("streams the vendor's events as they come, each one valid in OpenAI's schema, with the body sent as written", async () => {
    const sent = codexRequest("Read hello.txt relay-bytes-stream [sim:token_latency_ms=30]", {
      reasoning: { effort: "low", summary: "auto" },
    });
    const answer = await post(sent);
    expect(answer.headers.get("content-type")).toContain("text/event-stream");
    const events = await readEvents(answer);
    for (const event of events) expect(event.name).toBe(event.data.type);
    expect(events.map((event) => event.data.sequence_number)).toEqual(events.map((_, index) => index));
    const names = events.map((event) => event.name);
    expect(names).toContain("response.reasoning_summary_text.delta");
    expect(names).toContain("response.function_call_arguments.delta");
    expect(names).toContain("response.custom_tool_call_input.delta");
    expect(names.at(-1)).toBe("response.completed");
    // Relayed as generated, not gathered: the first event left long before the last.
    expect(events.at(-1)!.receivedAt - events[0]!.receivedAt).toBeGreaterThan(300);
    const [upstream] = await upstreamWith("relay-bytes-stream");
    expect(upstream!.bodyText).toBe(sent);
  });

  it("changes only the model's value when the vendor knows the model by another id", async () => {
    const sent = codexRequest("Read hello.txt relay-alias", { model: "gpt-5-2025-08-07", stream: false });
    const answer = await post(sent);
    expect(answer.status).toBe(200);
    expect(responseErrors(await json(answer))).toEqual([]);
    const [upstream] = await upstreamWith("relay-alias");
    expect(upstream!.bodyText).toBe(sent.replace('"model": "gpt-5-2025-08-07"', '"model": "gpt-5"'));
  });

  it("bills the vendor's usage, cached and reasoning tokens included, and moves the balance by exactly that", async () => {
    const priced = await stack.createAccount({ group: "premium", creditYuan: 100 });
    const ask = () => post(reasoningTurn("relay-billing", { stream: false }), priced.api_key);
    await json(await ask());
    await eventually(async () => ((await upstreamWith("relay-billing")).length === 1 ? true : undefined));
    const before = await eventually(async () => {
      const rows = await queryRows<{ n: string }>(
        stack.databaseUrl,
        "SELECT count(*) AS n FROM ledger.usage_records WHERE account_id = $1",
        [priced.account_id],
      );
      return rows[0]!.n === "1" ? balanceMicrosOf(stack.databaseUrl, priced.account_id) : undefined;
    });
    const answer = await ask();
    const body = await json(answer);
    expect(responseErrors(body)).toEqual([]);
    const usage = body.usage;
    expect(usage.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const record = await usageRecordOf(stack.databaseUrl, answer.headers.get("x-request-id")!);
    expect(record).toMatchObject({
      model: "gpt-5",
      endpoint: "/v1/responses",
      prompt_tokens: usage.input_tokens,
      completion_tokens: usage.output_tokens,
      cached_tokens: usage.input_tokens_details.cached_tokens,
      reasoning_tokens: usage.output_tokens_details.reasoning_tokens,
      estimated: false,
    });
    const price = shippedPrice("gpt-5", "premium");
    const expected = priceUsage({
      promptTokens: usage.input_tokens,
      completionTokens: usage.output_tokens,
      cachedTokens: usage.input_tokens_details.cached_tokens,
      inputPriceMicros: price.input,
      cacheReadPriceMicros: price.cache_read,
      outputPriceMicros: price.output,
      multiplierBasisPoints: 15_000,
    });
    expect(BigInt(record.cost_micros)).toBe(expected);
    const after = await eventually(async () => {
      const balance = await balanceMicrosOf(stack.databaseUrl, priced.account_id);
      return balance !== before ? balance : undefined;
    });
    expect(before - after).toBe(expected);
  });

  it("keeps the request and the vendor's output in the request log", async () => {
    // A short input, so the whole request fits the log's cap.
    const input = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "Read hello.txt relay-logged" }] },
    ];
    const answer = await post(codexRequest("", { input, stream: true }));
    const events = await readEvents(answer);
    const completed = events.at(-1)!.data.response as { output: unknown[] };
    const requestId = answer.headers.get("x-request-id")!;
    const log = await eventually(async () => {
      const rows = await queryRows<{ request_body: string; response_body: string }>(
        stack.databaseUrl,
        "SELECT request_body, response_body FROM ledger.request_logs WHERE request_id = $1",
        [requestId],
      );
      return rows[0];
    });
    const logged = JSON.parse(log.request_body);
    expect(logged.input.at(-1).content[0].text).toBe("Read hello.txt relay-logged");
    expect(logged.tools).toContain("apply_patch");
    expect(JSON.parse(log.response_body)).toEqual({ output: completed.output });
  });

  it("carries a reasoning item's encrypted_content through two turns unchanged", async () => {
    const first = reasoningTurn("relay-two-turns", { include: ["reasoning.encrypted_content"] });
    const events = await readEvents(await post(first));
    const items = events
      .filter((event) => event.name === "response.output_item.done")
      .map((event) => event.data.item as Record<string, unknown> & { type: string; call_id?: string });
    const reasoning = items.find((item) => item.type === "reasoning")!;
    expect(reasoning.encrypted_content).toMatch(/^gAAAAAB/);
    const outputs = items
      .filter((item) => item.call_id)
      .map((item) => ({
        type: item.type === "custom_tool_call" ? "custom_tool_call_output" : "function_call_output",
        call_id: item.call_id,
        output: "hello from the gateway test",
      }));
    const turn = JSON.parse(first) as { input: unknown[] };
    const second = JSON.stringify({ ...turn, input: [...turn.input, ...items, ...outputs] });
    const answer = await post(second);
    expect(answer.status).toBe(200);
    const finished = (await readEvents(answer)).at(-1)!;
    expect(finished.name).toBe("response.completed");
    const [, upstream] = await upstreamWith("relay-two-turns");
    expect(upstream!.bodyText).toBe(second);
    expect(upstream!.bodyText).toContain(String(reasoning.encrypted_content));
  });

  it("relays the vendor's verdict on the request with its status and its own error body", async () => {
    const refused = await post(codexRequest("Read hello.txt relay-refused [sim:status=400]", { stream: false }));
    expect(refused.status).toBe(400);
    expect(await json(refused)).toEqual({
      error: { message: "Simulated bad request.", type: "invalid_request_error", param: null, code: null },
    });
    const tampered = JSON.stringify({
      model: "gpt-5",
      input: [
        { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAAABforged" },
        { role: "user", content: "relay-forged" },
      ],
    });
    const forged = await post(tampered);
    expect(forged.status).toBe(400);
    expect((await json(forged)).error).toMatchObject({ code: "invalid_encrypted_content" });
  });

  it("fails over a vendor's 5xx as chat does: the client gets the answer of the next attempt", async () => {
    await queueSimulatorFault(stack.simulatorUrl, { status: 500, count: 1, model: "gpt-5" });
    const answer = await post(codexRequest("Read hello.txt relay-failover", { stream: true }));
    expect(answer.status).toBe(200);
    expect((await readEvents(answer)).at(-1)!.name).toBe("response.completed");
    const attempts = await upstreamWith("relay-failover");
    expect(attempts.map((attempt) => attempt.status)).toEqual([500, 200]);
  });

  it("ends a stream the vendor broke after output with OpenAI's error event, numbered next, and bills what was delivered", async () => {
    const answer = await post(
      codexRequest("Read hello.txt relay-broken [sim:cut_after=3]", { tools: [], stream: true }),
    );
    expect(answer.status).toBe(200);
    const events = await readEvents(answer);
    const last = events.at(-1)!;
    expect(last.name).toBe("error");
    expect(last.data.sequence_number).toBe(events.length - 1);
    expect(events.filter((event) => event.name.endsWith(".delta"))).toHaveLength(3);
    const record = await usageRecordOf(stack.databaseUrl, answer.headers.get("x-request-id")!);
    expect(record).toMatchObject({ outcome: "stream_broken", estimated: true, completion_tokens: 3 });
  });

  it("cancels the vendor call when the client leaves mid-stream, and bills what was delivered", async () => {
    const controller = new AbortController();
    const answer = await fetch(`${stack.baseUrl}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" },
      body: codexRequest("Read hello.txt relay-leaves [sim:tokens=400] [sim:token_latency_ms=50]", {
        tools: [],
        stream: true,
      }),
      signal: controller.signal,
    });
    const reader = answer.body!.getReader();
    await reader.read();
    controller.abort();
    const requestId = answer.headers.get("x-request-id")!;
    const [upstream] = await eventually(async () => {
      const seen = await upstreamWith("relay-leaves");
      return seen[0]?.aborted ? seen : undefined;
    });
    expect(upstream!.aborted).toBe(true);
    const record = await usageRecordOf(stack.databaseUrl, requestId);
    expect(record).toMatchObject({ outcome: "client_cancelled", estimated: true, endpoint: "/v1/responses" });
  });

  it("keeps a stored relayed response for GET /v1/responses/{id}, and none sent with store false", async () => {
    const stored = await client.responses.create({ model: "gpt-5", input: "relay-stored" });
    expect(stored).toMatchObject({ store: true });
    expect((await client.responses.retrieve(stored.id)).id).toBe(stored.id);
    const unstored = await client.responses.create({ model: "gpt-5", input: "relay-unstored", store: false });
    await expect(client.responses.retrieve(unstored.id)).rejects.toMatchObject({ status: 404 });
  });

  it("serves a model OpenAI offers only on its Responses API there, and refuses it on chat naming /v1/responses", async () => {
    const relayed = await client.responses.create({ model: "gpt-5.3-codex", input: "relay-codex-only" });
    expect(relayed.model).toBe("gpt-5.3-codex");
    const onChat = await client.chat.completions
      .create({ model: "gpt-5.3-codex", messages: [{ role: "user", content: "hi" }] })
      .catch((error: unknown) => error);
    expect(onChat).toMatchObject({ status: 400, param: "model", code: "unsupported_model" });
    expect((onChat as Error).message).toContain("only supported in /v1/responses");
  });

  it("still serves other vendors' models on /v1/responses through chat", async () => {
    const response = await client.responses.create({ model: "qwen-plus", input: "relay-translated" });
    expect(response.status).toBe("completed");
    const [upstream] = await upstreamWith("relay-translated");
    expect(upstream!.path).toBe("/v1/chat/completions");
  });
});
