import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "./server.js";

let simulator: Simulator;
const auth = { authorization: "Bearer sk-test-key", "content-type": "application/json" };
const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Weather for a city",
      parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } } },
    },
  },
  { type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } },
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

function chat(body: unknown, init: RequestInit = {}): Promise<Response> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return fetch(`${simulator.url}/v1/chat/completions`, { method: "POST", headers: auth, body: text, ...init });
}

const ask = (content: string, extra: Record<string, unknown> = {}) => ({
  model: "gpt-4o-mini",
  messages: [{ role: "user", content }],
  ...extra,
});

// biome-ignore lint/suspicious/noExplicitAny: the assertions themselves check the shape of response bodies
type Body = any;

function json(response: Response): Promise<Body> {
  return response.json();
}

/** Reads an SSE body to its end, or until the connection breaks; says which. */
async function readEvents(response: Response): Promise<{ events: string[]; broken: boolean }> {
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
    .filter((frame) => frame.startsWith("data: "))
    .map((frame) => frame.slice(6));
  return { events, broken };
}

async function requests() {
  const response = await fetch(`${simulator.url}/_sim/requests`);
  return (
    (await response.json()) as { data: { aborted: boolean; status: number | null; headers: Record<string, string> }[] }
  ).data;
}

describe("chat completions", () => {
  it("answers in OpenAI's JSON shape", async () => {
    const response = await chat(ask("Hello there", { n: 2 }));
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "gpt-4o-mini",
      system_fingerprint: "fp_sim",
      usage: {
        prompt_tokens: 3,
        completion_tokens: 48,
        total_tokens: 51,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(body.created).toBeTypeOf("number");
    expect(body.choices).toHaveLength(2);
    expect(body.choices[0]).toEqual({
      index: 0,
      message: {
        role: "assistant",
        content: expect.stringMatching(/^Simulated answer from gpt-4o-mini: Hello there /),
        refusal: null,
        annotations: [],
      },
      logprobs: null,
      finish_reason: "stop",
    });
  });

  it("streams role, tokens, finish, usage and [DONE] frames", async () => {
    const response = await chat(ask("Hi", { stream: true, stream_options: { include_usage: true }, max_tokens: 5 }));
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const { events, broken } = await readEvents(response);
    expect(broken).toBe(false);
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event));
    expect(chunks).toHaveLength(1 + 5 + 1 + 1);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk")).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "", refusal: null });
    const text = chunks.slice(1, 6).map((chunk) => chunk.choices[0].delta.content);
    expect(text.join("")).toBe("Simulated answer from gpt-4o-mini: Hi ");
    expect(chunks[6].choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: "length" });
    expect(chunks.slice(0, 7).every((chunk) => chunk.usage === null)).toBe(true);
    expect(chunks[7].choices).toEqual([]);
    expect(chunks[7].usage).toMatchObject({ prompt_tokens: 1, completion_tokens: 5, total_tokens: 6 });
  });

  it("streams tool-call fragments that join into valid JSON arguments", async () => {
    const response = await chat(ask("What is the weather?", { stream: true, tools }));
    const { events } = await readEvents(response);
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event));
    const calls: { id?: string; name?: string; arguments: string }[] = [];
    for (const chunk of chunks) {
      for (const fragment of chunk.choices[0]?.delta.tool_calls ?? []) {
        calls[fragment.index] ??= { arguments: "" };
        const call = calls[fragment.index]!;
        call.id ??= fragment.id;
        call.name ??= fragment.function?.name;
        call.arguments += fragment.function?.arguments ?? "";
      }
    }
    expect(calls.map((call) => call.name)).toEqual(["get_weather", "get_time"]);
    expect(calls[0]!.id).toMatch(/^call_[0-9a-f]{8}_0$/);
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ city: "sample-city", days: 1 });
    expect(JSON.parse(calls[1]!.arguments)).toEqual({});
    expect(chunks.at(-1).choices[0].finish_reason).toBe("tool_calls");
  });

  it("answers with tool calls and no content when tools are offered", async () => {
    const body = await json(await chat(ask("Weather?", { tools, parallel_tool_calls: false })));
    expect(body.choices[0].finish_reason).toBe("tool_calls");
    expect(body.choices[0].message.content).toBeNull();
    expect(body.choices[0].message.tool_calls).toEqual([
      {
        id: expect.any(String),
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"sample-city","days":1}' },
      },
    ]);
  });

  it("reports a grok model's reasoning apart from completion_tokens, as xAI does, streamed and not", async () => {
    const thinking = ask("Think first", { model: "grok-3-mini", reasoning_effort: "low", max_tokens: 4 });
    const { usage } = await json(await chat(thinking));
    const reasoning = usage.completion_tokens_details.reasoning_tokens;
    expect(reasoning).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBe(4);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + 4 + reasoning);
    const { events } = await readEvents(
      await chat({ ...thinking, stream: true, stream_options: { include_usage: true } }),
    );
    expect(JSON.parse(events.at(-2)!).usage).toEqual(usage);
  });

  it("answers logprobs in OpenAI's shape when asked, streamed and not", async () => {
    const asked = ask("Hello", { max_tokens: 3, logprobs: true, top_logprobs: 2 });
    const [choice] = (await json(await chat(asked))).choices;
    expect(choice.logprobs.refusal).toBeNull();
    const entries = choice.logprobs.content;
    expect(entries.map((entry: Body) => entry.token).join("")).toBe(choice.message.content);
    expect(entries[0]).toEqual({
      token: entries[0].token,
      logprob: expect.any(Number),
      bytes: [...Buffer.from(entries[0].token)],
      top_logprobs: [
        { token: entries[0].token, logprob: entries[0].logprob, bytes: entries[0].bytes },
        expect.any(Object),
      ],
    });
    const { events } = await readEvents(await chat({ ...asked, stream: true }));
    const streamed = events.slice(0, -1).flatMap((event) => JSON.parse(event).choices[0].logprobs?.content ?? []);
    expect(streamed).toEqual(entries);
    expect((await chat(ask("Hello", { top_logprobs: 2 }))).status).toBe(400);
  });

  it("refuses requests without a bearer key", async () => {
    const response = await chat(ask("Hi"), { headers: { "content-type": "application/json" } });
    expect(response.status).toBe(401);
    expect((await json(response)).error).toMatchObject({
      type: "invalid_request_error",
      param: null,
      code: "invalid_api_key",
    });
  });

  it("refuses malformed JSON, a missing model and empty messages", async () => {
    for (const body of ["{not json", { messages: [{ role: "user", content: "x" }] }, { model: "m", messages: [] }]) {
      const response = await chat(body);
      expect(response.status).toBe(400);
      expect((await json(response)).error.type).toBe("invalid_request_error");
    }
  });

  it("answers unknown paths with OpenAI's 404", async () => {
    const response = await fetch(`${simulator.url}/v1/nothing`, { headers: auth });
    expect(response.status).toBe(404);
    expect((await json(response)).error.message).toBe("Invalid URL (GET /v1/nothing)");
  });

  it("lists recently requested models", async () => {
    await chat({ model: "my-model", messages: [{ role: "user", content: "x" }] });
    const body = await json(await fetch(`${simulator.url}/v1/models`, { headers: auth }));
    expect(body.object).toBe("list");
    expect(body.data.map((model: { id: string }) => model.id)).toEqual(["my-model", "gpt-4o-mini"]);
  });
});

describe("reasoning efforts each model takes", () => {
  const effort = (model: string, reasoning_effort: string, extra: Record<string, unknown> = {}) =>
    chat(ask("Hi", { model, reasoning_effort, ...extra }));

  it("refuses none and minimal on GPT-6.2, and anything above high on Grok 4.3, naming what the model takes", async () => {
    const refused = await effort("gpt-6.2-sol", "none");
    expect(refused.status).toBe(400);
    expect((await json(refused)).error).toMatchObject({
      param: "reasoning_effort",
      message: expect.stringContaining("'low', 'medium', 'high', 'xhigh', and 'max'"),
    });
    expect((await effort("gpt-6.2-sol", "max")).status).toBe(200);
    expect((await effort("grok-4.3", "none")).status).toBe(200);
    expect((await effort("grok-4.3", "xhigh")).status).toBe(400);
    expect((await effort("grok-4.5", "minimal")).status).toBe(400);
  });

  it("refuses penalties and stop on Grok 4 reasoning models, and takes them on the non-reasoning ones", async () => {
    for (const model of ["grok-4.3", "grok-4-1-fast-reasoning"]) {
      for (const extra of [{ presence_penalty: 0.5 }, { frequency_penalty: 0.5 }, { stop: ["x"] }]) {
        expect((await chat(ask("Hi", { model, ...extra }))).status, `${model} ${JSON.stringify(extra)}`).toBe(400);
      }
    }
    expect((await chat(ask("Hi", { model: "grok-4-1-fast-non-reasoning", stop: ["x"] }))).status).toBe(200);
  });

  it("refuses a temperature other than 1 on Kimi K3, and turning thinking off on K3 and K2.7 Code", async () => {
    const hot = await chat(ask("Hi", { model: "kimi-k3", temperature: 0.3 }));
    expect(hot.status).toBe(400);
    expect((await json(hot)).error.message).toBe("invalid temperature: only 1 is allowed for this model");
    expect((await chat(ask("Hi", { model: "kimi-k3", temperature: 1 }))).status).toBe(200);
    for (const model of ["kimi-k3.1-pro", "kimi-k2.7-code"]) {
      expect((await chat(ask("Hi", { model, thinking: { type: "disabled" } }))).status, model).toBe(400);
    }
    expect((await chat(ask("Hi", { model: "kimi-k2.6", thinking: { type: "disabled" } }))).status).toBe(200);
  });

  it("refuses function tools with an effort on GPT-5.6 and GPT-6 Chat Completions, and takes them at none", async () => {
    const refused = await effort("gpt-6-sol", "medium", { tools });
    expect(refused.status).toBe(400);
    expect((await json(refused)).error.message).toContain("Function tools with reasoning_effort are not supported");
    expect((await effort("gpt-6-sol", "none", { tools })).status).toBe(200);
    expect((await effort("gpt-6.2-sol", "medium", { tools })).status).toBe(200);
  });
});

describe("structured output", () => {
  const schema = {
    type: "object",
    properties: {
      city: { type: "string" },
      temperatures: { type: "array", items: { type: "number", minimum: -40, maximum: 50 }, minItems: 3 },
    },
    required: ["city", "temperatures"],
    additionalProperties: false,
  };
  const format = { type: "json_schema", json_schema: { name: "forecast", schema, strict: true } };

  function checkForecast(text: string): void {
    const value = JSON.parse(text);
    expect(value.city).toBe("sample-city");
    expect(value.temperatures.length).toBeGreaterThanOrEqual(3);
    for (const degrees of value.temperatures) expect(Math.abs(degrees)).toBeLessThanOrEqual(50);
  }

  it("answers content satisfying a json_schema response_format", async () => {
    const body = await json(await chat(ask("Forecast?", { response_format: format })));
    expect(body.choices[0].finish_reason).toBe("stop");
    checkForecast(body.choices[0].message.content);
  });

  it("streams the same JSON in content deltas", async () => {
    const whole = await json(await chat(ask("Forecast?", { response_format: format })));
    const { events } = await readEvents(await chat(ask("Forecast?", { response_format: format, stream: true })));
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event));
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    expect(chunks.length).toBeGreaterThan(5);
    expect(text).toBe(whole.choices[0].message.content);
  });

  it("answers a JSON object for json_object", async () => {
    const body = await json(await chat(ask("Reply in JSON", { response_format: { type: "json_object" } })));
    expect(JSON.parse(body.choices[0].message.content)).toEqual({ answer: expect.any(String) });
  });

  it("refuses a malformed response_format as OpenAI does", async () => {
    const missing = await chat(ask("Hi", { response_format: { type: "json_schema" } }));
    expect(missing.status).toBe(400);
    expect((await json(missing)).error).toMatchObject({ param: "response_format.json_schema" });
    const unknown = await chat(ask("Hi", { response_format: { type: "yaml" } }));
    expect((await json(unknown)).error).toMatchObject({ param: "response_format.type" });
  });

  it("calls a forced tool with arguments satisfying its parameters", async () => {
    const forecast = { type: "function", function: { name: "forecast", parameters: schema, strict: true } };
    const choice = { type: "function", function: { name: "forecast" } };
    const body = await json(await chat(ask("Forecast?", { tools: [forecast], tool_choice: choice })));
    checkForecast(body.choices[0].message.tool_calls[0].function.arguments);
  });
});

describe("faults", () => {
  it("answers the status a directive asks for, with retry-after on 429", async () => {
    const response = await chat(ask("Hi [sim:status=429]"));
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("1");
    expect((await json(response)).error).toMatchObject({ code: "rate_limit_exceeded", param: null });
  });

  it("cuts a stream after the asked number of tokens, without finish or [DONE]", async () => {
    const response = await chat(ask("Hi [sim:cut_after=2]", { stream: true }));
    const { events, broken } = await readEvents(response);
    expect(broken).toBe(true);
    expect(events).not.toContain("[DONE]");
    const deltas = events.map((event) => JSON.parse(event).choices[0]);
    expect(deltas.map((choice) => choice.delta.content)).toEqual(["", "Simulated ", "answer "]);
    expect(deltas.every((choice) => choice.finish_reason === null)).toBe(true);
    const [record] = await requests();
    expect(record).toMatchObject({ aborted: false, status: 200 });
  });

  it("omits usage when told to", async () => {
    const body = await json(await chat(ask("Hi [sim:no_usage]")));
    expect(body).not.toHaveProperty("usage");
  });

  it("applies a queued fault to the next count matching requests", async () => {
    const queued = await fetch(`${simulator.url}/_sim/faults`, {
      method: "POST",
      body: JSON.stringify({ status: 503, count: 2, model: "gpt-4o-mini" }),
    });
    expect(queued.status).toBe(200);
    expect((await chat({ model: "other", messages: [{ role: "user", content: "x" }] })).status).toBe(200);
    expect((await chat(ask("x"))).status).toBe(503);
    expect((await chat(ask("x"))).status).toBe(503);
    expect((await chat(ask("x"))).status).toBe(200);
  });

  it("refuses malformed queued faults", async () => {
    const response = await fetch(`${simulator.url}/_sim/faults`, { method: "POST", body: '{"status":"bad"}' });
    expect(response.status).toBe(400);
  });

  it("records a client that leaves mid-stream as aborted", async () => {
    const controller = new AbortController();
    const response = await chat(ask("Hi [sim:token_latency_ms=50] [sim:tokens=200]", { stream: true }), {
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect.poll(async () => (await requests())[0]?.aborted, { timeout: 2000 }).toBe(true);
  });

  it("records a hanging request as aborted once the client gives up", async () => {
    const signal = AbortSignal.timeout(100);
    await expect(chat(ask("Hi [sim:hang]"), { signal })).rejects.toThrow();
    await expect.poll(async () => (await requests())[0]?.aborted, { timeout: 2000 }).toBe(true);
    expect((await requests())[0]?.status).toBeNull();
  });
});

describe("request log", () => {
  it("records requests with the key redacted", async () => {
    await chat(ask("Hi"));
    const [record] = await requests();
    expect(record?.headers.authorization).toBe("Bearer sk-t...");
    expect(record).toMatchObject({ aborted: false, status: 200 });
  });

  it("reports health", async () => {
    expect(await json(await fetch(`${simulator.url}/_sim/health`))).toEqual({ ok: true });
  });
});
