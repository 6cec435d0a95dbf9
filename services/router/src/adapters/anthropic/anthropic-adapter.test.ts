import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { CatalogueModel } from "@gateway/catalogue";
import type { ChatChunk, ChatRequest } from "@gateway/proto/router/v1/chat";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { KeyedChannel } from "../../routing/channel-keys.js";
import { defaultTimeouts } from "../../vendor-http/vendor-client.js";
import type { AdapterCall } from "../chat-adapter.js";
import { anthropicAdapter } from "./anthropic-adapter.js";

// A realistic Anthropic stream: text, then two parallel tool_use blocks whose arguments arrive
// as input_json_delta fragments (the first one empty, as Anthropic sends it), with a ping.
const rawStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":472,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Okay"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", checking both."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"location\\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" \\"San Francisco, CA\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_02ABCdefGHIjklMNOpqrSTUv","name":"get_time","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"timezone\\": \\"America/"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"Los_Angeles\\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}

`;

let server: Server;
let baseUrl: string;
let reply: { status: number; type: string; body: string };
let seen: { path: string; headers: IncomingHttpHeaders; body: Record<string, unknown> } | undefined;

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on("end", () => {
      seen = { path: request.url ?? "", headers: request.headers, body: JSON.parse(text) };
      response.writeHead(reply.status, { "content-type": reply.type });
      response.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen = undefined;
});

const call = (overrides: Partial<ChatRequest> = {}): AdapterCall => ({
  request: {
    caller: undefined,
    model: "claude-sonnet-4-5",
    messages: [{ role: "user", text: "Weather and time in SF?", parts: [], toolCalls: [] }],
    tools: [],
    anthropicBeta: [],
    anthropicExtraJson: "",
    stop: [],
    stream: false,
    includeUsage: false,
    extraJson: "",
    ...overrides,
  },
  model: { id: "claude-sonnet-4-5", default_max_tokens: 4096, capabilities: [] } as unknown as CatalogueModel,
  channel: { baseUrl, key: { secret: "sk-ant-test" } } as unknown as KeyedChannel,
  signal: new AbortController().signal,
  timeouts: defaultTimeouts,
});

async function collect(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe("the Anthropic adapter over HTTP", () => {
  it("posts to /v1/messages with Anthropic's headers and maps the answer", async () => {
    reply = {
      status: 200,
      type: "application/json",
      body: JSON.stringify({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: "Hi" }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      }),
    };
    const completion = await anthropicAdapter.complete(call());
    expect(seen!.path).toBe("/v1/messages");
    expect(seen!.headers).toMatchObject({
      "x-api-key": "sk-ant-test",
      "anthropic-version": "2023-06-01",
      "content-type": "application/json",
    });
    expect(seen!.headers).not.toHaveProperty("authorization");
    expect(seen!.body).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 4096 });
    expect(completion.choices[0]!.message!.content).toBe("Hi");
    expect(completion.usage).toMatchObject({ promptTokens: 3, completionTokens: 1, totalTokens: 4, cachedTokens: 0 });
  });

  it("maps a raw stream of text and two parallel tool calls to chunks", async () => {
    reply = { status: 200, type: "text/event-stream", body: rawStream };
    const chunks = await collect(anthropicAdapter.stream(call({ stream: true })));
    expect(seen!.body.stream).toBe(true);
    expect(chunks.every((chunk) => chunk.id === "msg_014p7gG3wDgGV9EUtLvnow3U")).toBe(true);
    expect(chunks.every((chunk) => chunk.model === "claude-sonnet-4-5-20250929")).toBe(true);
    const deltas = chunks.filter((chunk) => chunk.choices.length > 0).map((chunk) => chunk.choices[0]!);
    expect(deltas.map((choice) => ({ ...choice.delta, finishReason: choice.finishReason }))).toEqual([
      { role: "assistant", content: "Okay", toolCalls: [], finishReason: undefined },
      { content: ", checking both.", toolCalls: [], finishReason: undefined },
      {
        toolCalls: [{ index: 0, id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", arguments: "" }],
        finishReason: undefined,
      },
      { toolCalls: [{ index: 0, arguments: '{"location":' }], finishReason: undefined },
      { toolCalls: [{ index: 0, arguments: ' "San Francisco, CA"}' }], finishReason: undefined },
      {
        toolCalls: [{ index: 1, id: "toolu_02ABCdefGHIjklMNOpqrSTUv", name: "get_time", arguments: "" }],
        finishReason: undefined,
      },
      { toolCalls: [{ index: 1, arguments: '{"timezone": "America/' }], finishReason: undefined },
      { toolCalls: [{ index: 1, arguments: 'Los_Angeles"}' }], finishReason: undefined },
      { toolCalls: [], finishReason: "tool_calls" },
    ]);
    const usage = chunks.at(-1)!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual({
      promptTokens: 472,
      completionTokens: 89,
      totalTokens: 561,
      cachedTokens: 0,
      cacheCreationTokens: 0,
      reasoningTokens: undefined,
    });
  });

  it("throws a retryable error for an error event mid-stream", async () => {
    const failing = rawStream.slice(0, rawStream.indexOf("event: content_block_stop"));
    reply = {
      status: 200,
      type: "text/event-stream",
      body: `${failing}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`,
    };
    await expect(collect(anthropicAdapter.stream(call({ stream: true })))).rejects.toMatchObject({ httpStatus: 503 });
  });

  it("treats a stream that ends before message_stop as broken", async () => {
    reply = {
      status: 200,
      type: "text/event-stream",
      body: rawStream.slice(0, rawStream.indexOf("event: message_delta")),
    };
    await expect(collect(anthropicAdapter.stream(call({ stream: true })))).rejects.toMatchObject({ httpStatus: 503 });
  });

  it("maps Anthropic's error bodies: overloaded is retryable, a bad request keeps its message", async () => {
    reply = {
      status: 529,
      type: "application/json",
      body: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
    };
    await expect(anthropicAdapter.complete(call())).rejects.toMatchObject({ httpStatus: 503 });
    reply = {
      status: 400,
      type: "application/json",
      body: JSON.stringify({
        type: "error",
        error: { type: "invalid_request_error", message: "messages: text content blocks must be non-empty" },
        request_id: "req_1",
      }),
    };
    await expect(anthropicAdapter.complete(call())).rejects.toMatchObject({
      httpStatus: 400,
      message: "messages: text content blocks must be non-empty",
    });
  });
});
