import Anthropic from "@anthropic-ai/sdk";
import type { MessageStream } from "@anthropic-ai/sdk/lib/MessageStream";
import type { MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import { priceUsage } from "@gateway/billing";
import {
  type SimulatedRequest,
  simulatorRequests,
  startTestStack,
  type TestStack,
  usageRecordOf,
} from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shippedPrice } from "./shipped-catalogue.js";

// Anthropic's Messages API in front (the official @anthropic-ai/sdk), every vendor behind:
// Claude natively, other families translated both ways.

let stack: TestStack;
let client: Anthropic;
// For the premium group's models (the reasoners).
let premiumClient: Anthropic;
let apiKey: string;
const claude = "claude-sonnet-4-6";
const openAIModel = "gpt-4o-mini";

const priceOf = (model: string) => shippedPrice(model, "default");

const usageRecord = (requestId: string) => usageRecordOf(stack.databaseUrl, requestId);

async function upstreamWith(marker: string, path: string): Promise<SimulatedRequest[]> {
  return (await simulatorRequests(stack.simulatorUrl)).filter(
    (request) => request.path === path && JSON.stringify(request.body).includes(marker),
  );
}

async function onlyUpstream(marker: string, path = "/v1/messages"): Promise<Record<string, unknown>> {
  const requests = await upstreamWith(marker, path);
  expect(requests).toHaveLength(1);
  return requests[0]!.body!;
}

const weatherTool: Tool = {
  name: "get_weather",
  description: "Current weather for a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

/** The types of a stream's content_block_delta events, as they come. */
function deltaTypesOf(stream: MessageStream): string[] {
  const types: string[] = [];
  stream.on("streamEvent", (event: Anthropic.MessageStreamEvent) => {
    if (event.type === "content_block_delta") types.push(event.delta.type);
  });
  return types;
}

/** The next turn of a tool loop: the model's answer as it came, then the tool's result. */
function answerToolCall(model: string, ask: MessageParam, first: Anthropic.Message, result: string) {
  const call = first.content.find((block) => block.type === "tool_use") as Anthropic.ToolUseBlock;
  return client.messages.create({
    model,
    max_tokens: 200,
    messages: [
      ask,
      { role: "assistant", content: first.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: result }] },
    ],
    tools: [weatherTool],
  });
}

beforeAll(async () => {
  stack = await startTestStack();
  const account = await stack.createAccount({ group: "default" });
  apiKey = account.api_key;
  // The SDK adds /v1 itself.
  const baseURL = stack.baseUrl.replace(/\/v1$/, "");
  client = new Anthropic({ baseURL, apiKey, maxRetries: 0 });
  const premium = await stack.createAccount({ group: "premium" });
  premiumClient = new Anthropic({ baseURL, apiKey: premium.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.teardown();
});

describe("Claude through the Messages ingress", () => {
  it("passes the request through natively and answers Anthropic's message, billed once", async () => {
    const { data: message, response } = await client.messages
      .create({
        model: claude,
        max_tokens: 300,
        system: [{ type: "text", text: "You are terse." }],
        messages: [{ role: "user", content: "native marker-1" }],
        stop_sequences: ["never-said"],
        metadata: { user_id: "user-42" },
        service_tier: "standard_only",
        output_config: { effort: "low" },
      })
      .withResponse();
    expect(message.type).toBe("message");
    expect(message.id).toMatch(/^msg_/);
    expect(message.model).toBe(claude);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.content[0]).toMatchObject({ type: "text" });
    expect((message.content[0] as { text: string }).text).toMatch(/^Simulated answer from claude-sonnet-4-6: native/);
    expect(message.usage.input_tokens).toBeGreaterThan(0);

    expect(await onlyUpstream("marker-1")).toEqual({
      model: claude,
      max_tokens: 300,
      system: "You are terse.",
      messages: [{ role: "user", content: "native marker-1" }],
      stop_sequences: ["never-said"],
      metadata: { user_id: "user-42" },
      service_tier: "standard_only",
      output_config: { effort: "low" },
    });
    const record = await usageRecord(response.headers.get("request-id")!);
    expect(record).toMatchObject({
      prompt_tokens: message.usage.input_tokens,
      completion_tokens: message.usage.output_tokens,
      estimated: false,
      stream: false,
      outcome: "ok",
    });
  });

  it("streams Anthropic's event sequence", async () => {
    const stream = client.messages.stream({
      model: claude,
      max_tokens: 12,
      messages: [{ role: "user", content: "stream marker-2" }],
    });
    const types: string[] = [];
    stream.on("streamEvent", (event) => types.push(event.type));
    const final = await stream.finalMessage();
    expect(types[0]).toBe("message_start");
    expect(types).toContain("content_block_delta");
    expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(final.stop_reason).toBe("max_tokens");
    expect(final.usage.output_tokens).toBe(12);
    expect(final.usage.input_tokens).toBeGreaterThan(0);
    expect((final.content[0] as { text: string }).text).toMatch(/^Simulated answer from claude-sonnet-4-6: stream/);
    expect(await onlyUpstream("marker-2")).toMatchObject({ stream: true, max_tokens: 12 });
  });

  it("runs a tool round trip", async () => {
    const ask: MessageParam = { role: "user", content: "weather in Paris marker-3" };
    const first = await client.messages.create({
      model: claude,
      max_tokens: 200,
      messages: [ask],
      tools: [weatherTool],
      tool_choice: { type: "tool", name: "get_weather" },
    });
    expect(first.stop_reason).toBe("tool_use");
    const toolUse = first.content.find((block) => block.type === "tool_use")!;
    expect(toolUse).toMatchObject({ type: "tool_use", name: "get_weather" });
    expect(typeof (toolUse as { input: unknown }).input).toBe("object");

    const second = await answerToolCall(claude, ask, first, "18C and sunny");
    expect(second.stop_reason).toBe("end_turn");
    expect((second.content[0] as { text: string }).text).toMatch(/Received tool result: 18C and sunny/);
  });

  it("keeps thinking and its signature across a tool loop, streamed and not", async () => {
    const thinking = { type: "enabled" as const, budget_tokens: 1024 };
    const ask: MessageParam = { role: "user", content: "think then call marker-4" };
    const stream = client.messages.stream({
      model: claude,
      max_tokens: 2048,
      thinking,
      messages: [ask],
      // Thinking cannot be combined with a forced tool; the model calls it of its own accord.
      tools: [weatherTool],
    });
    const deltas = deltaTypesOf(stream);
    const first = await stream.finalMessage();
    expect(deltas).toContain("thinking_delta");
    expect(deltas).toContain("signature_delta");
    expect(deltas).toContain("input_json_delta");
    const [thought, call] = first.content;
    expect(thought).toMatchObject({ type: "thinking" });
    expect((thought as { signature: string }).signature).not.toBe("");
    expect(call).toMatchObject({ type: "tool_use", name: "get_weather" });

    const answer = (content: Anthropic.ContentBlockParam[]) =>
      client.messages.create({
        model: claude,
        max_tokens: 2048,
        thinking,
        messages: [
          ask,
          { role: "assistant", content },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: (call as { id: string }).id, content: "rain" }],
          },
        ],
        tools: [weatherTool],
      });
    // The simulated Claude checks the signature, as Anthropic does: it reached it intact.
    const second = await answer(first.content as Anthropic.ContentBlockParam[]);
    expect(second.content.map((block) => block.type)).toEqual(["thinking", "text"]);
    expect(second.content[0]).toHaveProperty("signature");

    const altered = [
      { ...(thought as Anthropic.ThinkingBlockParam), thinking: "edited" },
      call as Anthropic.ToolUseBlockParam,
    ];
    const refused = await answer(altered).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error" },
    });
  });

  it("passes cache_control through and bills cache reads and writes at their own rates", async () => {
    const longContext = "The gateway caches this long shared context. ".repeat(120);
    const request = (question: string) =>
      client.messages
        .create({
          model: claude,
          max_tokens: 50,
          system: [{ type: "text", text: longContext, cache_control: { type: "ephemeral" } }],
          messages: [{ role: "user", content: question }],
        })
        .withResponse();
    const { data: written, response: writeResponse } = await request("first question marker-5");
    expect(written.usage.cache_creation_input_tokens).toBeGreaterThanOrEqual(1024);
    expect(written.usage.cache_read_input_tokens).toBe(0);
    const upstream = await onlyUpstream("first question marker-5");
    expect(upstream.system).toEqual([{ type: "text", text: longContext, cache_control: { type: "ephemeral" } }]);

    const { data: read, response: readResponse } = await request("second question marker-5");
    expect(read.usage.cache_read_input_tokens).toBe(written.usage.cache_creation_input_tokens);
    expect(read.usage.cache_creation_input_tokens).toBe(0);

    const price = priceOf(claude);
    expect(price.cache_read).toBeLessThan(price.input);
    for (const [message, response] of [
      [written, writeResponse],
      [read, readResponse],
    ] as const) {
      const { usage } = message;
      const cached = usage.cache_read_input_tokens ?? 0;
      const creation = usage.cache_creation_input_tokens ?? 0;
      const record = await usageRecord(response.headers.get("request-id")!);
      const promptTokens = usage.input_tokens + cached + creation;
      expect(record).toMatchObject({
        prompt_tokens: promptTokens,
        cached_tokens: cached,
        cache_creation_tokens: creation,
      });
      const expected = priceUsage({
        promptTokens,
        completionTokens: usage.output_tokens,
        cachedTokens: cached,
        cacheCreationTokens: creation,
        inputPriceMicros: price.input,
        outputPriceMicros: price.output,
        cacheReadPriceMicros: price.cache_read,
        cacheWritePriceMicros: price.cache_write,
        multiplierBasisPoints: 10_000,
      });
      expect(BigInt(record.cost_micros)).toBe(expected);
    }
  });

  it("sends documents and images as Claude's blocks and the anthropic-beta header along", async () => {
    const pdf = Buffer.from("%PDF-1.4 simulated").toString("base64");
    const png = "iVBORw0KGgo=";
    await client.messages.create(
      {
        model: claude,
        max_tokens: 20,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "read these marker-14" },
              { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf }, title: "spec" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
            ],
          },
        ],
      },
      { headers: { "anthropic-beta": "files-api-2025-04-14" } },
    );
    const [upstream] = await upstreamWith("marker-14", "/v1/messages");
    expect(upstream!.headers["anthropic-beta"]).toBe("files-api-2025-04-14");
    expect((upstream!.body!.messages as { content: unknown }[])[0]!.content).toEqual([
      { type: "text", text: "read these marker-14" },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf }, title: "spec" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
    ]);
  });

  it("counts tokens with Claude's own count_tokens", async () => {
    const messages: MessageParam[] = [{ role: "user", content: "count me exactly marker-6" }];
    const counted = await client.messages.countTokens({ model: claude, messages, system: "Be brief." });
    expect(await upstreamWith("marker-6", "/v1/messages/count_tokens")).toHaveLength(1);
    const message = await client.messages.create({ model: claude, max_tokens: 5, messages, system: "Be brief." });
    expect(counted.input_tokens).toBe(message.usage.input_tokens);
  });
});

describe("other families through the Messages ingress", () => {
  it("answers an OpenAI model in Anthropic's shape, translating the request", async () => {
    const message = await client.messages.create({
      model: openAIModel,
      max_tokens: 40,
      system: "Be brief.",
      messages: [{ role: "user", content: "translated marker-7" }],
      output_config: { effort: "high" },
    });
    expect(message).toMatchObject({ type: "message", role: "assistant", model: openAIModel, stop_reason: "end_turn" });
    expect((message.content[0] as { text: string }).text).toMatch(/^Simulated answer from gpt-4o-mini: translated/);
    const upstream = await onlyUpstream("marker-7", "/v1/chat/completions");
    expect(upstream).toMatchObject({
      model: openAIModel,
      max_completion_tokens: 40,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "translated marker-7" },
      ],
    });
    // Claude-only settings stay with Claude.
    expect(upstream).not.toHaveProperty("output_config");
  });

  it("streams an OpenAI model's tool call as input_json_delta and takes the result back", async () => {
    const ask: MessageParam = { role: "user", content: "weather in Rome marker-8" };
    const stream = client.messages.stream({
      model: openAIModel,
      max_tokens: 200,
      messages: [ask],
      tools: [weatherTool],
      tool_choice: { type: "any" },
    });
    const deltas = deltaTypesOf(stream);
    const first = await stream.finalMessage();
    expect(deltas).toContain("input_json_delta");
    expect(first.stop_reason).toBe("tool_use");
    const call = first.content.find((block) => block.type === "tool_use") as { id: string; input: unknown };
    expect(call.input).toEqual(expect.any(Object));

    const second = await answerToolCall(openAIModel, ask, first, "22C");
    expect((second.content[0] as { text: string }).text).toMatch(/Received tool result: 22C/);
    const upstream = await upstreamWith("marker-8", "/v1/chat/completions");
    expect(upstream.at(-1)!.body!.messages).toEqual([
      { role: "user", content: "weather in Rome marker-8" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: call.id, type: "function", function: { name: "get_weather", arguments: JSON.stringify(call.input) } },
        ],
      },
      { role: "tool", content: "22C", tool_call_id: call.id },
    ]);
  });

  it("sends a PDF to an OpenAI model as a file part, and refuses it before a vendor that cannot read it", async () => {
    const pdf = Buffer.from("%PDF-1.4 simulated").toString("base64");
    const withPdf = (model: string, marker: string) =>
      client.messages.create({
        model,
        max_tokens: 20,
        messages: [
          {
            role: "user",
            content: [
              { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf } },
              { type: "text", text: marker },
            ],
          },
        ],
      });
    await withPdf(openAIModel, "pdf marker-15");
    const [upstream] = await upstreamWith("pdf marker-15", "/v1/chat/completions");
    expect((upstream!.body!.messages as { content: unknown }[])[0]!.content).toEqual([
      { type: "file", file: { file_data: `data:application/pdf;base64,${pdf}`, filename: "document.pdf" } },
      { type: "text", text: "pdf marker-15" },
    ]);
    const refused = await withPdf("deepseek-chat", "pdf marker-16").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(await upstreamWith("pdf marker-16", "/v1/chat/completions")).toHaveLength(0);
  });

  it("shows DeepSeek's reasoning as a thinking block", async () => {
    const message = await premiumClient.messages.create({
      model: "deepseek-reasoner",
      max_tokens: 200,
      messages: [{ role: "user", content: "reason marker-9" }],
    });
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text"]);
    expect((message.content[0] as { thinking: string }).thinking).toContain("reason marker-9");
  });

  it("estimates count_tokens for a model whose vendor has no counting endpoint", async () => {
    const counted = await client.messages.countTokens({
      model: openAIModel,
      messages: [{ role: "user", content: "estimate me marker-10" }],
    });
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(await upstreamWith("marker-10", "/v1/messages/count_tokens")).toHaveLength(0);
  });
});

describe("the Messages ingress's edges", () => {
  const post = (body: unknown, headers: Record<string, string> = { "x-api-key": apiKey }) =>
    fetch(`${stack.baseUrl}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
      body: JSON.stringify(body),
    });

  it("refuses bad input with Anthropic's error shape and a 4xx, before any vendor call", async () => {
    const missing = await client.messages
      .create({ model: claude, messages: [{ role: "user", content: "no max marker-11" }] } as never)
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(Anthropic.BadRequestError);
    expect((missing as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringContaining("max_tokens") },
    });

    const badRole = await post({
      model: claude,
      max_tokens: 10,
      messages: [{ role: "system", content: "bad role marker-11" }],
    });
    expect(badRole.status).toBe(400);
    expect(await badRole.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(await upstreamWith("marker-11", "/v1/messages")).toHaveLength(0);
  });

  it("answers a bad key with Anthropic's authentication_error, taking the key from x-api-key or a bearer token", async () => {
    const refused = await post({ model: claude, max_tokens: 5, messages: [] }, { "x-api-key": "sk-wrong" });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });

    const bearer = await post(
      { model: claude, max_tokens: 5, messages: [{ role: "user", content: "bearer marker-12" }] },
      { authorization: `Bearer ${apiKey}` },
    );
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get("request-id")).toMatch(/^req_/);
  });

  it("passes the sampling fields older clients send, on Claude's scale, and pings in a stream", async () => {
    const answer = await post({
      model: claude,
      max_tokens: 8,
      stream: true,
      temperature: 0.3,
      top_k: 5,
      messages: [{ role: "user", content: "sampling marker-13" }],
    });
    expect(answer.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = [...(await answer.text()).matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    expect(events.slice(0, 3)).toEqual(["message_start", "ping", "content_block_start"]);
    expect(events.slice(-3)).toEqual(["content_block_stop", "message_delta", "message_stop"]);
    expect(await onlyUpstream("marker-13")).toMatchObject({ temperature: 0.3, top_k: 5, stream: true });
  });

  it("lists models in Anthropic's shape when asked with anthropic-version", async () => {
    const page = await client.models.list();
    const ids = page.data.map((model) => model.id);
    expect(ids).toContain(claude);
    expect(ids).toContain(openAIModel);
    expect(page.data[0]).toMatchObject({ type: "model", display_name: expect.any(String) });
    expect(Date.parse(page.data[0]!.created_at)).toBeGreaterThan(0);
  });
});
