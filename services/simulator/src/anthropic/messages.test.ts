import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../server.js";

let simulator: Simulator;
const headers = {
  "x-api-key": "sk-ant-test-key",
  "anthropic-version": "2023-06-01",
  "content-type": "application/json",
};
const tools = [
  {
    name: "get_weather",
    description: "Weather for a city",
    input_schema: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } } },
  },
  { name: "get_time", input_schema: { type: "object", properties: {} } },
];

beforeAll(async () => {
  simulator = await startSimulator({ port: 0 });
});

afterAll(async () => {
  await simulator.close();
});

beforeEach(async () => {
  await fetch(`${simulator.url}/_sim/faults`, { method: "DELETE" });
  await fetch(`${simulator.url}/_sim/requests`, { method: "DELETE" });
});

function post(body: unknown, init: RequestInit = {}): Promise<Response> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return fetch(`${simulator.url}/v1/messages`, { method: "POST", headers, body: text, ...init });
}

const ask = (content: string, extra: Record<string, unknown> = {}) => ({
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  messages: [{ role: "user", content }],
  ...extra,
});

// biome-ignore lint/suspicious/noExplicitAny: the assertions themselves check the shape of response bodies
type Body = any;

function json(response: Response): Promise<Body> {
  return response.json();
}

interface Event {
  event: string;
  data: Body;
}

/** Reads an SSE body to its end, or until the connection breaks; says which. */
async function readEvents(response: Response): Promise<{ events: Event[]; broken: boolean }> {
  const decoder = new TextDecoder();
  let text = "";
  let broken = false;
  try {
    for await (const chunk of response.body!) text += decoder.decode(chunk, { stream: true });
  } catch {
    broken = true;
  }
  const events = text
    .split("\n\n")
    .filter((frame) => frame.startsWith("event: "))
    .map((frame) => {
      const [eventLine = "", dataLine = ""] = frame.split("\n");
      return { event: eventLine.slice("event: ".length), data: JSON.parse(dataLine.slice("data: ".length)) };
    });
  return { events, broken };
}

async function requests() {
  const response = await fetch(`${simulator.url}/_sim/requests`);
  return (await json(response)).data as {
    path: string;
    aborted: boolean;
    status: number | null;
    headers: Record<string, string>;
  }[];
}

describe("Anthropic messages", () => {
  it("answers in Anthropic's message shape", async () => {
    const response = await post(ask("Hello there", { system: "Be brief." }));
    expect(response.status).toBe(200);
    expect(response.headers.get("request-id")).toMatch(/^req_/);
    const body = await json(response);
    expect(body).toEqual({
      id: expect.stringMatching(/^msg_/),
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [
        { type: "text", text: expect.stringMatching(/^Simulated answer from claude-sonnet-4-5: Hello there /) },
      ],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: {
        input_tokens: 5,
        output_tokens: 24,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        service_tier: "standard",
        inference_geo: "not_available",
      },
    });
  });

  it("stops at max_tokens and at stop sequences, naming the sequence", async () => {
    const capped = await json(await post(ask("Hi", { max_tokens: 3 })));
    expect(capped).toMatchObject({ stop_reason: "max_tokens", usage: { output_tokens: 3 } });
    expect(capped.content[0].text).toBe("Simulated answer from ");
    const stopped = await json(await post(ask("Hi", { stop_sequences: ["nope", "from"] })));
    expect(stopped).toMatchObject({ stop_reason: "stop_sequence", stop_sequence: "from" });
    expect(stopped.content[0].text).toBe("Simulated answer ");
  });

  it("streams Anthropic's named events in order", async () => {
    const response = await post(ask("Hi", { stream: true, max_tokens: 4 }));
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const { events, broken } = await readEvents(response);
    expect(broken).toBe(false);
    expect(events.every(({ event, data }) => data.type === event)).toBe(true);
    expect(events.map(({ event }) => event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      ...Array(4).fill("content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events[0]!.data.message).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    expect(events[2]!.data).toEqual({
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    });
    const text = events.slice(3, 7).map(({ data }) => data.delta.text);
    expect(text.join("")).toBe("Simulated answer from claude-sonnet-4-5: ");
    expect(events[3]!.data.delta.type).toBe("text_delta");
    expect(events[8]!.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "max_tokens", stop_sequence: null },
      usage: { input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 4 },
    });
  });

  it("calls tools in parallel, honouring disable_parallel_tool_use and a named tool", async () => {
    const parallel = await json(await post(ask("Weather?", { tools })));
    expect(parallel.stop_reason).toBe("tool_use");
    expect(parallel.content).toEqual([
      {
        type: "tool_use",
        id: expect.stringMatching(/^toolu_[0-9a-f]{8}_0$/),
        name: "get_weather",
        input: { city: "sample-city", days: 1 },
      },
      { type: "tool_use", id: expect.stringMatching(/_1$/), name: "get_time", input: {} },
    ]);
    const single = await json(
      await post(ask("Weather?", { tools, tool_choice: { type: "any", disable_parallel_tool_use: true } })),
    );
    expect(single.content.map((block: { name: string }) => block.name)).toEqual(["get_weather"]);
    const named = await json(await post(ask("Time?", { tools, tool_choice: { type: "tool", name: "get_time" } })));
    expect(named.content.map((block: { name: string }) => block.name)).toEqual(["get_time"]);
    const none = await json(await post(ask("Time?", { tools, tool_choice: { type: "none" } })));
    expect(none.content[0].type).toBe("text");
  });

  it("streams tool_use blocks with input_json_delta pieces that join into the input", async () => {
    const { events } = await readEvents(await post(ask("Weather?", { tools, stream: true })));
    const starts = events.filter(({ event }) => event === "content_block_start").map(({ data }) => data);
    expect(starts).toEqual([
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: expect.stringMatching(/^toolu_/), name: "get_weather", input: {} },
      },
      {
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: expect.stringMatching(/^toolu_/), name: "get_time", input: {} },
      },
    ]);
    const pieces = events
      .filter(({ event, data }) => event === "content_block_delta" && data.index === 0)
      .map(({ data }) => data.delta);
    expect(pieces.every((delta: { type: string }) => delta.type === "input_json_delta")).toBe(true);
    expect(pieces.length).toBeGreaterThan(2);
    expect(JSON.parse(pieces.map((delta: { partial_json: string }) => delta.partial_json).join(""))).toEqual({
      city: "sample-city",
      days: 1,
    });
    expect(events.find(({ event }) => event === "message_delta")!.data.delta.stop_reason).toBe("tool_use");
  });

  it("answers a tool result with text mentioning it", async () => {
    const body = await json(
      await post({
        model: "claude-sonnet-4-5",
        max_tokens: 100,
        tools,
        messages: [
          { role: "user", content: "Weather in Paris?" },
          {
            role: "assistant",
            content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "18C and sunny" }] },
        ],
      }),
    );
    expect(body.stop_reason).toBe("end_turn");
    expect(body.content[0].text).toMatch(/^Received tool result: 18C and sunny/);
  });

  it("counts images and system blocks as prompt tokens", async () => {
    const body = await json(
      await post({
        model: "claude-sonnet-4-5",
        max_tokens: 10,
        system: [{ type: "text", text: "12345678" }],
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "abcd" },
              { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
              { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            ],
          },
        ],
      }),
    );
    expect(body.usage.input_tokens).toBe(3 + 2 * 85);
  });

  it("requires x-api-key and anthropic-version with Anthropic's error shape", async () => {
    const keyless = await post(ask("Hi"), { headers: { "anthropic-version": "2023-06-01" } });
    expect(keyless.status).toBe(401);
    expect(await json(keyless)).toEqual({
      type: "error",
      error: { type: "authentication_error", message: "x-api-key header is required" },
      request_id: expect.stringMatching(/^req_/),
    });
    const bearer = await post(ask("Hi"), {
      headers: { authorization: "Bearer sk-x", "anthropic-version": "2023-06-01" },
    });
    expect(bearer.status).toBe(401);
    const versionless = await post(ask("Hi"), { headers: { "x-api-key": "k" } });
    expect(versionless.status).toBe(400);
    expect((await json(versionless)).error).toEqual({
      type: "invalid_request_error",
      message: "anthropic-version: header is required",
    });
  });

  it.each([
    ["malformed JSON", "{oops", /not valid JSON/],
    ["no model", { max_tokens: 5, messages: [{ role: "user", content: "x" }] }, /^model: Field required/],
    ["no max_tokens", { model: "m", messages: [{ role: "user", content: "x" }] }, /^max_tokens: Field required/],
    ["no messages", { model: "m", max_tokens: 5 }, /^messages: Field required/],
    ["empty messages", { model: "m", max_tokens: 5, messages: [] }, /at least one message/],
    [
      "a system role",
      { model: "m", max_tokens: 5, messages: [{ role: "system", content: "x" }] },
      /top-level `system`/,
    ],
    ["an OpenAI field", { ...ask("x"), n: 2 }, /^n: Extra inputs are not permitted/],
    ["temperature above 1", { ...ask("x"), temperature: 1.5 }, /^temperature:/],
    ["temperature with top_p", { ...ask("x"), temperature: 0.5, top_p: 0.9 }, /cannot both be specified/],
    [
      "an empty text block",
      { ...ask("x"), messages: [{ role: "user", content: [{ type: "text", text: "" }] }] },
      /text content blocks must be non-empty/,
    ],
    [
      "an OpenAI image part",
      { ...ask("x"), messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }] },
      /does not match/,
    ],
    [
      "an unanswered tool_use",
      {
        ...ask("x"),
        messages: [
          { role: "user", content: "x" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_9", name: "f", input: {} }] },
          { role: "user", content: "y" },
        ],
      },
      /tool_use` ids were found without `tool_result` blocks immediately after: toolu_9/,
    ],
    [
      "a stray tool_result",
      { ...ask("x"), messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_8" }] }] },
      /unexpected `tool_use_id` found in `tool_result` blocks: toolu_8/,
    ],
    ["an unknown named tool", { ...ask("x"), tools, tool_choice: { type: "tool", name: "nope" } }, /not found/],
  ])("refuses %s with invalid_request_error", async (_name, body, message) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    const error = await json(response);
    expect(error.type).toBe("error");
    expect(error.error.type).toBe("invalid_request_error");
    expect(error.error.message).toMatch(message);
  });
});

describe("Anthropic structured output", () => {
  const schema = {
    type: "object",
    properties: { name: { type: "string" }, age: { type: "integer", minimum: 18, maximum: 30 } },
    required: ["name", "age"],
    additionalProperties: false,
  };

  it("answers JSON satisfying a schema that the system prompt asks for", async () => {
    const system = `Be precise.\n\nRespond with a single valid JSON value and nothing else. The JSON must conform to this JSON Schema:\n${JSON.stringify(schema)}`;
    const body = await json(await post(ask("Who?", { system })));
    const value = JSON.parse(body.content[0].text);
    expect(value.name).toBe("sample-name");
    expect(value.age).toBeGreaterThanOrEqual(18);
    expect(value.age).toBeLessThanOrEqual(30);
    const { events } = await readEvents(await post(ask("Who?", { system, stream: true })));
    const deltas = events.filter((event) => event.data.delta?.type === "text_delta");
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((event) => event.data.delta.text).join("")).toBe(body.content[0].text);
  });

  it("answers a JSON object when asked for JSON without a schema, and prose otherwise", async () => {
    const asked = await json(await post(ask("Who?", { system: "Respond only with JSON." })));
    expect(JSON.parse(asked.content[0].text)).toEqual({ answer: expect.any(String) });
    const plain = await json(await post(ask("Who?", { system: "Mention JSON if you like." })));
    expect(plain.content[0].text).toMatch(/^Simulated answer/);
  });

  it("fills a forced tool's input to satisfy its input_schema", async () => {
    const person = { name: "person", input_schema: schema };
    const body = await json(
      await post(ask("Who?", { tools: [person], tool_choice: { type: "tool", name: "person" } })),
    );
    expect(body.content[0]).toMatchObject({ type: "tool_use", name: "person", input: { name: "sample-name" } });
    expect(body.content[0].input.age).toBeGreaterThanOrEqual(18);
  });
});

describe("Anthropic faults", () => {
  it("answers overloaded (529) and rate limits (429) with Anthropic's errors and retry-after", async () => {
    const overloaded = await post(ask("Hi [sim:status=529]"));
    expect(overloaded.status).toBe(529);
    expect(overloaded.headers.get("retry-after")).toBe("1");
    expect((await json(overloaded)).error).toEqual({ type: "overloaded_error", message: "Overloaded" });
    const limited = await post(ask("Hi [sim:status=429]"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect((await json(limited)).error.type).toBe("rate_limit_error");
    expect((await json(await post(ask("Hi [sim:status=500]")))).error.type).toBe("api_error");
  });

  it("applies a queued fault to matching requests, by model and key", async () => {
    await fetch(`${simulator.url}/_sim/faults`, {
      method: "POST",
      body: JSON.stringify({ status: 503, model: "claude-sonnet-4-5", api_key: "sk-ant-test-key" }),
    });
    expect((await post(ask("x"), { headers: { ...headers, "x-api-key": "other" } })).status).toBe(200);
    const failed = await post(ask("x"));
    expect(failed.status).toBe(503);
    expect((await json(failed)).error.type).toBe("api_error");
    expect((await post(ask("x"))).status).toBe(200);
  });

  it("cuts a stream after the asked number of tokens, before message_delta", async () => {
    const { events, broken } = await readEvents(await post(ask("Hi [sim:cut_after=2]", { stream: true })));
    expect(broken).toBe(true);
    const texts = events.filter(({ event }) => event === "content_block_delta").map(({ data }) => data.delta.text);
    expect(texts).toEqual(["Simulated ", "answer "]);
    expect(events.some(({ event }) => event === "message_delta" || event === "message_stop")).toBe(false);
    const [record] = await requests();
    expect(record).toMatchObject({ path: "/v1/messages", aborted: false, status: 200 });
  });

  it("sends half a JSON body when cut without streaming", async () => {
    const response = await post(ask("Hi [sim:cut_after=1]"));
    await expect(response.text()).rejects.toThrow();
  });

  it("omits usage when told to", async () => {
    expect(await json(await post(ask("Hi [sim:no_usage]")))).not.toHaveProperty("usage");
    const { events } = await readEvents(await post(ask("Hi [sim:no_usage]", { stream: true })));
    const delta = events.find(({ event }) => event === "message_delta")!.data;
    expect(delta).toEqual({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null } });
  });

  it("records a client that leaves mid-stream as aborted", async () => {
    const controller = new AbortController();
    const response = await post(ask("Hi [sim:token_latency_ms=50] [sim:tokens=200]", { stream: true }), {
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect.poll(async () => (await requests())[0]?.aborted, { timeout: 2000 }).toBe(true);
  });

  it("records a hanging request as aborted once the client gives up", async () => {
    const signal = AbortSignal.timeout(100);
    await expect(post(ask("Hi [sim:hang]"), { signal })).rejects.toThrow();
    await expect.poll(async () => (await requests())[0]?.aborted, { timeout: 2000 }).toBe(true);
    expect((await requests())[0]).toMatchObject({ status: null, path: "/v1/messages" });
  });

  it("waits for delay_ms and token latency", async () => {
    const started = Date.now();
    await json(await post(ask("Hi [sim:delay_ms=120]")));
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    const paced = Date.now();
    await readEvents(await post(ask("Hi [sim:token_latency_ms=20] [sim:tokens=6]", { stream: true })));
    expect(Date.now() - paced).toBeGreaterThanOrEqual(90);
  });

  it("records requests with the key redacted", async () => {
    await post(ask("Hi"));
    const [record] = await requests();
    expect(record?.headers["x-api-key"]).toMatch(/^sk-a\.\.\./);
    expect(record?.headers["x-api-key"]).not.toContain("ant-test");
  });
});

describe("each Claude model's own 400s", () => {
  const refusal = async (body: unknown) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    return ((await json(response)) as Body).error.message as string;
  };
  const claude = (model: string, extra: Record<string, unknown> = {}) => ({ ...ask("Hi"), model, ...extra });

  it("refuses a budget on every Claude 5 model and disabled thinking where it cannot be turned off", async () => {
    for (const model of [
      "claude-opus-5-5",
      "claude-sonnet-5-5",
      "claude-opus-5",
      "claude-haiku-5-5",
      "claude-fable-5-2",
    ]) {
      expect(await refusal(claude(model, { thinking: { type: "enabled", budget_tokens: 2048 } }))).toContain(
        '"thinking.type.enabled" is not supported for this model',
      );
    }
    for (const model of ["claude-opus-5-5", "claude-sonnet-5-5", "claude-fable-5-1"]) {
      expect(await refusal(claude(model, { thinking: { type: "disabled" } }))).toContain("thinking.type.disabled");
    }
    for (const model of ["claude-opus-5", "claude-sonnet-5", "claude-haiku-5-5"]) {
      expect((await post(claude(model, { thinking: { type: "disabled" } }))).status, model).toBe(200);
    }
  });

  it("takes between_tools on Sonnet 5.5 only", async () => {
    expect((await post(claude("claude-sonnet-5-5", { thinking: { type: "between_tools" } }))).status).toBe(200);
    expect(await refusal(claude("claude-opus-5-5", { thinking: { type: "between_tools" } }))).toContain(
      "thinking.type.between_tools",
    );
    expect(await refusal(claude("claude-sonnet-4-5", { thinking: { type: "between_tools" } }))).toContain(
      "thinking.type.between_tools",
    );
  });

  it("refuses forced tool use on Opus 5.5, Sonnet 5.5 and Fable 5.1, and takes it elsewhere", async () => {
    for (const model of ["claude-opus-5-5", "claude-sonnet-5-5", "claude-fable-5-1"]) {
      for (const tool_choice of [{ type: "any" }, { type: "tool", name: "get_time" }]) {
        expect(await refusal(claude(model, { tools, tool_choice }))).toContain("forced tool use is not available");
      }
      expect((await post(claude(model, { tools, tool_choice: { type: "auto" } }))).status, model).toBe(200);
    }
    for (const model of ["claude-opus-5", "claude-haiku-5-5", "claude-sonnet-4-5"]) {
      expect((await post(claude(model, { tools, tool_choice: { type: "any" } }))).status, model).toBe(200);
    }
  });

  it("refuses sampling parameters on Claude 5 models and a prefill on Haiku 5.5", async () => {
    expect(await refusal(claude("claude-sonnet-5", { temperature: 0.5 }))).toContain("temperature");
    const prefill = [
      { role: "user", content: "Name a colour." },
      { role: "assistant", content: "The colour is" },
    ];
    expect(await refusal(claude("claude-haiku-5-5", { messages: prefill }))).toContain("prefill");
    expect((await post(claude("claude-sonnet-5-5", { messages: prefill }))).status).toBe(200);
  });
});

describe("what Claude Code sends to Claude Opus 4.8", () => {
  const midConversation = (model: string) => ({
    model,
    max_tokens: 64000,
    thinking: { type: "adaptive" },
    tools,
    messages: [
      { role: "user", content: "What is the weather?" },
      { role: "system", content: "<system-reminder>use the tools</system-reminder>" },
    ],
  });

  it("takes a system message after a user turn and answers that turn, calling its tools", async () => {
    const body = await json(await post(midConversation("claude-opus-4-8")));
    expect(body.stop_reason).toBe("tool_use");
  });

  it("refuses a mid-conversation system message on models before Opus 4.8, and one opening the conversation", async () => {
    expect((await post(midConversation("claude-sonnet-4-5"))).status).toBe(400);
    const opening = { ...ask("hi", { model: "claude-opus-4-8" }), messages: [{ role: "system", content: "x" }] };
    expect((await post(opening)).status).toBe(400);
  });

  it("reports thinking tokens in usage when the thinking-token-count beta is asked for", async () => {
    const thinking = { model: "claude-opus-4-8", thinking: { type: "adaptive" } };
    const beta = { headers: { ...headers, "anthropic-beta": "claude-code-20250219,thinking-token-count-2026-05-13" } };
    const counted = await json(await post(ask("Why is the sky blue?", thinking), beta));
    const thoughts = counted.content[0].thinking.split(/(?<=\s)/).length;
    expect(counted.usage.output_tokens_details).toEqual({ thinking_tokens: thoughts });
    const plain = await json(await post(ask("Why is the sky blue?", thinking)));
    expect(plain.usage.output_tokens_details).toBeUndefined();
  });
});
