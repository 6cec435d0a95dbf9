import {
  type SimulatedRequest,
  simulatorRequests,
  startTestStack,
  type TestStack,
  usageRecordOf,
} from "@gateway/stack";
import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Claude through the gateway: OpenAI's wire format in front, Anthropic's Messages API (the
// simulator's /v1/messages) behind.

let stack: TestStack;
let client: OpenAI;
const model = "claude-sonnet-4-6";

const usageRecord = (requestId: string) => usageRecordOf(stack.databaseUrl, requestId);

/** The Anthropic requests the simulator received whose body mentions `marker`. */
async function upstreamWith(marker: string): Promise<SimulatedRequest[]> {
  return (await simulatorRequests(stack.simulatorUrl)).filter(
    (request) => request.path === "/v1/messages" && JSON.stringify(request.body).includes(marker),
  );
}

async function onlyUpstream(marker: string): Promise<Record<string, unknown>> {
  const requests = await upstreamWith(marker);
  expect(requests).toHaveLength(1);
  return requests[0]!.body!;
}

const tools: ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather for a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
  {
    type: "function",
    function: {
      name: "get_time",
      parameters: { type: "object", properties: { timezone: { type: "string" } }, required: ["timezone"] },
    },
  },
];

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

beforeAll(async () => {
  stack = await startTestStack();
  const account = await stack.createAccount({ group: "premium" });
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.teardown();
});

describe("Claude chat through the running stack", () => {
  it("answers a chat, sending Anthropic's body upstream, and records usage", async () => {
    const completion = await client.chat.completions.create({
      model,
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "plain chat marker-1" },
      ],
      temperature: 0.8,
      stop: ["never-said"],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe(model);
    expect(completion.choices[0]!.message.content).toMatch(/^Simulated answer from claude-sonnet-4-6: plain chat/);
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);

    const [upstream] = await upstreamWith("marker-1");
    expect(upstream!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(upstream!.headers["x-api-key"]).toBeTruthy();
    expect(upstream!.headers).not.toHaveProperty("authorization");
    expect(upstream!.body).toEqual({
      model,
      max_tokens: 4096,
      system: "You are terse.",
      messages: [{ role: "user", content: "plain chat marker-1" }],
      temperature: 0.4,
      stop_sequences: ["never-said"],
    });

    const record = await usageRecord(completion._request_id!);
    expect(record).toMatchObject({
      prompt_tokens: completion.usage!.prompt_tokens,
      completion_tokens: completion.usage!.completion_tokens,
      estimated: false,
      stream: false,
      outcome: "ok",
    });
    expect(Number(record.cost_micros)).toBeGreaterThan(0);
  });

  it("streams with include_usage and bills the vendor's counts", async () => {
    const { data: stream, response } = await client.chat.completions
      .create({
        model,
        messages: [{ role: "user", content: "stream marker-2" }],
        max_tokens: 12,
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const chunks = await collect(stream);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    expect(text).toMatch(/^Simulated answer from claude-sonnet-4-6: stream marker-2/);
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === "length")).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ completion_tokens: 12 });
    expect(last.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);

    expect(await onlyUpstream("marker-2")).toMatchObject({ stream: true, max_tokens: 12 });
    const record = await usageRecord(response.headers.get("x-request-id")!);
    expect(record).toMatchObject({
      prompt_tokens: last.usage!.prompt_tokens,
      completion_tokens: 12,
      stream: true,
      estimated: false,
    });
  });

  it("carries a multi-turn conversation as alternating turns", async () => {
    const completion = await client.chat.completions.create({
      model,
      messages: [
        { role: "user", content: "first turn marker-3" },
        { role: "assistant", content: "first answer" },
        { role: "user", content: "second turn" },
      ],
    });
    expect(completion.choices[0]!.message.content).toMatch(/: second turn/);
    expect((await onlyUpstream("marker-3")).messages).toEqual([
      { role: "user", content: "first turn marker-3" },
      { role: "assistant", content: "first answer" },
      { role: "user", content: "second turn" },
    ]);
  });

  it("sends image URLs and data URLs as Anthropic image blocks", async () => {
    const completion = await client.chat.completions.create({
      model,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "two images marker-4" },
            { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
      ],
    });
    expect(completion.usage!.prompt_tokens).toBeGreaterThanOrEqual(2 * 85);
    expect((await onlyUpstream("marker-4")).messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "two images marker-4" },
          { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
        ],
      },
    ]);
  });

  it("refuses n > 1 with a 400 before calling the vendor", async () => {
    const error = await client.chat.completions
      .create({ model, messages: [{ role: "user", content: "n marker-5" }], n: 2 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("n");
    expect(await upstreamWith("marker-5")).toHaveLength(0);
  });
});

describe("Claude tool calls through the running stack", () => {
  it("makes a single named tool call", async () => {
    const completion = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "time please marker-6" }],
      tools,
      tool_choice: { type: "function", function: { name: "get_time" } },
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^toolu_/),
        type: "function",
        function: { name: "get_time", arguments: '{"timezone":"sample-timezone"}' },
      },
    ]);
    const upstream = await onlyUpstream("marker-6");
    expect(upstream.tool_choice).toEqual({ type: "tool", name: "get_time" });
    expect(upstream.tools).toEqual([
      {
        name: "get_weather",
        description: "Current weather for a city",
        input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
      {
        name: "get_time",
        input_schema: { type: "object", properties: { timezone: { type: "string" } }, required: ["timezone"] },
      },
    ]);
  });

  it("makes parallel tool calls, or one when parallel_tool_calls is false", async () => {
    const parallel = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "weather and time marker-7" }],
      tools,
    });
    const calls = parallel.choices[0]!.message.tool_calls!;
    expect(calls.map((call) => call.type === "function" && call.function.name)).toEqual(["get_weather", "get_time"]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);

    const single = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "just one marker-8" }],
      tools,
      parallel_tool_calls: false,
    });
    expect(single.choices[0]!.message.tool_calls).toHaveLength(1);
    expect((await onlyUpstream("marker-8")).tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
  });

  it("streams tool-call fragments that join into valid JSON per call", async () => {
    const stream = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "streamed tools marker-9" }],
      tools,
      tool_choice: "required",
      stream: true,
    });
    const calls: { id?: string; name?: string; arguments: string }[] = [];
    let fragments = 0;
    const chunks = await collect(stream);
    for (const chunk of chunks) {
      for (const fragment of chunk.choices[0]?.delta.tool_calls ?? []) {
        calls[fragment.index] ??= { arguments: "" };
        const call = calls[fragment.index]!;
        call.id ??= fragment.id;
        call.name ??= fragment.function?.name;
        call.arguments += fragment.function?.arguments ?? "";
        fragments += 1;
      }
    }
    expect(calls.map((call) => call.name)).toEqual(["get_weather", "get_time"]);
    expect(calls.every((call) => call.id?.startsWith("toolu_"))).toBe(true);
    expect(fragments).toBeGreaterThan(4);
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ city: "sample-city" });
    expect(JSON.parse(calls[1]!.arguments)).toEqual({ timezone: "sample-timezone" });
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === "tool_calls")).toBe(true);
    expect((await onlyUpstream("marker-9")).tool_choice).toEqual({ type: "any" });
  });

  it("answers a tool-result turn, sending the results as tool_result blocks", async () => {
    const question: ChatCompletionMessageParam = { role: "user", content: "weather and time marker-10" };
    const first = await client.chat.completions.create({ model, messages: [question], tools });
    const assistant = first.choices[0]!.message;
    const [weather, time] = assistant.tool_calls!;
    const followUp = await client.chat.completions.create({
      model,
      tools,
      messages: [
        question,
        assistant,
        { role: "tool", tool_call_id: weather!.id, content: "18C and sunny" },
        { role: "tool", tool_call_id: time!.id, content: "09:00 CET" },
      ],
    });
    expect(followUp.choices[0]!.finish_reason).toBe("stop");
    expect(followUp.choices[0]!.message.content).toMatch(/^Received tool result: 18C and sunny/);

    const upstream = await upstreamWith("marker-10");
    expect(upstream).toHaveLength(2);
    expect(upstream[1]!.body!.messages).toEqual([
      { role: "user", content: "weather and time marker-10" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: weather!.id, name: "get_weather", input: { city: "sample-city" } },
          { type: "tool_use", id: time!.id, name: "get_time", input: { timezone: "sample-timezone" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: weather!.id, content: "18C and sunny" },
          { type: "tool_result", tool_use_id: time!.id, content: "09:00 CET" },
        ],
      },
    ]);
    const record = await usageRecord(followUp._request_id!);
    expect(record).toMatchObject({ completion_tokens: followUp.usage!.completion_tokens, estimated: false });
  });
});

describe("Claude faults through the running stack", () => {
  it("retries an overloaded (529) answer and succeeds", async () => {
    await fetch(`${stack.simulatorUrl}/_sim/faults`, {
      method: "POST",
      body: JSON.stringify({ status: 529, model, count: 1 }),
    });
    const completion = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "overloaded once marker-11" }],
    });
    expect(completion.choices[0]!.message.content).toMatch(/marker-11/);
    const statuses = (await upstreamWith("marker-11")).map((request) => request.status);
    expect(statuses).toEqual([529, 200]);
  });

  it("bills an estimate when the vendor reports no usage", async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model, messages: [{ role: "user", content: "no usage marker-12 [sim:no_usage]" }], stream: true })
      .withResponse();
    const chunks = await collect(stream);
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === "stop")).toBe(true);
    const record = await usageRecord(response.headers.get("x-request-id")!);
    expect(record).toMatchObject({ estimated: true, stream: true });
    expect(record.completion_tokens).toBeGreaterThan(0);
  });
});
