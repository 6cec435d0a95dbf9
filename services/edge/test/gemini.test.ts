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

const model = "gemini-2.5-flash";
let stack: TestStack;
let client: OpenAI;

const usageRecord = (requestId: string) => usageRecordOf(stack.databaseUrl, requestId);

/** The Gemini requests that reached the simulator and mention `marker` somewhere in their body. */
async function geminiRequests(marker: string): Promise<SimulatedRequest[]> {
  const requests = await simulatorRequests(stack.simulatorUrl);
  return requests.filter(
    (request) => request.path.startsWith(`/v1beta/models/${model}:`) && JSON.stringify(request.body).includes(marker),
  );
}

async function geminiRequest(marker: string): Promise<SimulatedRequest> {
  const requests = await geminiRequests(marker);
  expect(requests).toHaveLength(1);
  return requests[0]!;
}

// biome-ignore lint/suspicious/noExplicitAny: the assertions themselves check the shape of upstream bodies
type Body = any;

const tools: ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Weather for a city",
      parameters: {
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
        additionalProperties: false,
      },
      strict: true,
    },
  },
  { type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } },
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

describe("Gemini through the running stack", () => {
  it("answers a chat through generateContent and records its usage", async () => {
    const completion = await client.chat.completions.create({
      model,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "gemini plain hello" },
      ],
      temperature: 0.3,
      max_tokens: 50,
    });
    expect(completion.model).toBe(model);
    expect(completion.choices[0]!.message.content).toMatch(
      /^Simulated answer from gemini-2.5-flash: gemini plain hello/,
    );
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);

    const upstream = await geminiRequest("gemini plain hello");
    expect(upstream.path).toBe(`/v1beta/models/${model}:generateContent`);
    expect(upstream.headers["x-goog-api-key"]).toMatch(/^sim-/);
    expect(upstream.headers).not.toHaveProperty("authorization");
    expect(upstream.body).toEqual({
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [{ role: "user", parts: [{ text: "gemini plain hello" }] }],
      generationConfig: { temperature: 0.3, maxOutputTokens: 50 },
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

  it("streams through streamGenerateContent with the usage chunk when asked", async () => {
    const { data: stream, response } = await client.chat.completions
      .create({
        model,
        messages: [{ role: "user", content: "gemini stream story" }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const chunks = await collect(stream);
    expect(chunks[0]!.choices[0]!.delta.role).toBe("assistant");
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    expect(text).toMatch(/^Simulated answer from gemini-2.5-flash: gemini stream story/);
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === "stop")).toBe(true);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    // gemini-2.5-flash thinks unasked, and completion_tokens includes its thoughts.
    const thoughts = last.usage!.completion_tokens_details?.reasoning_tokens ?? 0;
    expect(thoughts).toBeGreaterThan(0);
    expect(last.usage!.completion_tokens).toBe(24 + thoughts);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);

    const upstream = await geminiRequest("gemini stream story");
    expect(upstream.path).toBe(`/v1beta/models/${model}:streamGenerateContent`);
    const record = await usageRecord(response.headers.get("x-request-id")!);
    expect(record).toMatchObject({
      completion_tokens: 24 + thoughts,
      prompt_tokens: last.usage!.prompt_tokens,
      stream: true,
    });
    expect(record.estimated).toBe(false);
  });

  it("sends a multi-turn conversation as user and model turns", async () => {
    const completion = await client.chat.completions.create({
      model,
      messages: [
        { role: "user", content: "gemini multi first" },
        { role: "assistant", content: "First answer." },
        { role: "user", content: "gemini multi second" },
      ],
    });
    expect(completion.choices[0]!.message.content).toContain("gemini multi second");
    const upstream = await geminiRequest("gemini multi first");
    expect((upstream.body as Body).contents).toEqual([
      { role: "user", parts: [{ text: "gemini multi first" }] },
      { role: "model", parts: [{ text: "First answer." }] },
      { role: "user", parts: [{ text: "gemini multi second" }] },
    ]);
  });
});

describe("Gemini image input", () => {
  const redPng = async () =>
    Buffer.from(await (await fetch(`${stack.simulatorUrl}/_sim/images/red.png`)).arrayBuffer());

  it("inlines a data-URL image", async () => {
    const data = (await redPng()).toString("base64");
    const completion = await client.chat.completions.create({
      model,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "gemini data image" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${data}` } },
          ],
        },
      ],
    });
    expect(completion.choices[0]!.message.content).toMatch(/\w/);
    const upstream = await geminiRequest("gemini data image");
    expect((upstream.body as Body).contents[0].parts).toEqual([
      { text: "gemini data image" },
      { inlineData: { mimeType: "image/png", data } },
    ]);
  });

  it("downloads an http image from an allow-listed host and inlines it", async () => {
    const completion = await client.chat.completions.create({
      model,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "gemini url image" },
            { type: "image_url", image_url: { url: `${stack.simulatorUrl}/_sim/images/red.png` } },
          ],
        },
      ],
    });
    expect(completion.usage!.prompt_tokens).toBeGreaterThanOrEqual(85);
    const upstream = await geminiRequest("gemini url image");
    expect((upstream.body as Body).contents[0].parts[1]).toEqual({
      inlineData: { mimeType: "image/png", data: (await redPng()).toString("base64") },
    });
  });

  it.each(["http://10.0.0.1/x.png", "http://127.0.0.1:1/x.png", "http://169.254.169.254/latest/meta-data/"])(
    "refuses %s, a private address not allow-listed, before calling Gemini",
    async (url) => {
      const marker = `gemini private image ${url}`;
      const request = client.chat.completions.create({
        model,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: marker },
              { type: "image_url", image_url: { url } },
            ],
          },
        ],
      });
      await expect(request).rejects.toMatchObject({
        status: 400,
        error: expect.objectContaining({ param: "messages", message: expect.stringContaining("private") }),
      });
      expect(await geminiRequests(marker)).toEqual([]);
    },
  );
});

describe("Gemini tools", () => {
  // Gemini's calls have no ids; router gives each its own, unique across a conversation's turns.
  const callId = expect.stringMatching(/^call_[0-9a-f]{24}$/);

  it("relays a single forced call and parallel calls", async () => {
    const single = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "gemini tool single" }],
      tools,
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    expect(single.choices[0]!.finish_reason).toBe("tool_calls");
    expect(single.choices[0]!.message.tool_calls).toEqual([
      { id: callId, type: "function", function: { name: "get_weather", arguments: '{"city":"sample-city"}' } },
    ]);
    const upstream = (await geminiRequest("gemini tool single")).body as Body;
    expect(upstream.toolConfig).toEqual({
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] },
    });
    expect(upstream.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: "get_weather",
            description: "Weather for a city",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          },
          { name: "get_time" },
        ],
      },
    ]);

    const parallel = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "gemini tool parallel" }],
      tools,
    });
    const calls = parallel.choices[0]!.message.tool_calls!;
    expect(calls.map((call) => call.type === "function" && [call.id, call.function.name])).toEqual([
      [callId, "get_weather"],
      [callId, "get_time"],
    ]);
    expect(calls[0]!.id).not.toBe(calls[1]!.id);
    expect(parallel.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("streams tool calls as complete fragments", async () => {
    const stream = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "gemini tool stream" }],
      tools,
      stream: true,
    });
    const chunks = await collect(stream);
    const fragments = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(fragments).toEqual([
      {
        index: 0,
        id: callId,
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"sample-city"}' },
      },
      { index: 1, id: callId, type: "function", function: { name: "get_time", arguments: "{}" } },
    ]);
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === "tool_calls")).toBe(true);
  });

  it("sends tool results back as functionResponse parts in one user turn", async () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: "user", content: "gemini tool loop" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_1", type: "function", function: { name: "get_time", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_0", content: '{"temperature":21}' },
      { role: "tool", tool_call_id: "call_1", content: "14:05" },
    ];
    const completion = await client.chat.completions.create({ model, messages, tools });
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.choices[0]!.message.content).toMatch(/^Received tool result: /);
    const upstream = (await geminiRequest("gemini tool loop")).body as Body;
    expect(upstream.contents).toEqual([
      { role: "user", parts: [{ text: "gemini tool loop" }] },
      {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Paris" } } },
          { functionCall: { name: "get_time", args: {} } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { temperature: 21 } } },
          { functionResponse: { name: "get_time", response: { result: "14:05" } } },
        ],
      },
    ]);
  });
});

describe("Gemini failures", () => {
  it("passes Gemini's explanation of a bad request through as a 400", async () => {
    const request = client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "bad [sim:status=400]" }],
    });
    await expect(request).rejects.toMatchObject({
      status: 400,
      error: expect.objectContaining({ message: "Simulated bad request." }),
    });
  });

  it("retries an overloaded Gemini and succeeds", async () => {
    await fetch(`${stack.simulatorUrl}/_sim/faults`, {
      method: "POST",
      body: JSON.stringify({ status: 503, model, count: 1 }),
    });
    const completion = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "gemini retry" }],
    });
    expect(completion.choices[0]!.message.content).toContain("gemini retry");
    const attempts = await geminiRequests("gemini retry");
    expect(attempts.map((attempt) => attempt.status)).toEqual([503, 200]);
  });
});
