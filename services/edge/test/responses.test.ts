import { connectTestRedis, queryRows, simulatorRequests, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codexTools } from "../src/openai-wire/codex-tools.fixtures.js";
import { bulkyPng } from "./media-fixtures.js";
import { codexCapture, completedResponse, createResponse, streamResponse } from "./responses-wire.js";

let stack: TestStack;
let client: OpenAI;
let otherClient: OpenAI;
let apiKey: string;

beforeAll(async () => {
  stack = await startTestStack();
  const account = await stack.createAccount({ group: "premium" });
  const other = await stack.createAccount({ group: "premium" });
  apiKey = account.api_key;
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  otherClient = new OpenAI({ baseURL: stack.baseUrl, apiKey: other.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.teardown();
});

// OpenAI's models are relayed to OpenAI's own Responses API (responses-relay.test.ts); these tests
// hold the Responses API translated onto chat, which serves every other vendor's chat models.
const translatedModel = "grok-4";

const weather = {
  type: "function" as const,
  name: "get_weather",
  description: "Current weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: true,
};

const upstreamWith = async (marker: string) =>
  (await simulatorRequests(stack.simulatorUrl)).filter((request) =>
    JSON.stringify(request.body ?? {}).includes(marker),
  );

describe("responses through the running stack", () => {
  it("answers a string input with a completed response object", async () => {
    const response = await client.responses.create({ model: translatedModel, input: "Say hello" });
    expect(response).toMatchObject({ object: "response", status: "completed", model: translatedModel, error: null });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output).toHaveLength(1);
    const message = response.output[0]!;
    expect(message).toMatchObject({ type: "message", role: "assistant", status: "completed" });
    expect(response.output_text.length).toBeGreaterThan(0);
    const usage = response.usage!;
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
    expect(usage.input_tokens_details.cached_tokens).toBe(0);
    expect(response).toMatchObject({ store: true, text: { format: { type: "text" } } });
  });

  it("sends items input with instructions as system and user messages", async () => {
    const response = await client.responses.create({
      model: translatedModel,
      instructions: "Be brief items-marker",
      input: [
        { role: "user", content: [{ type: "input_text", text: "first question" }] },
        { role: "assistant", content: "first answer" },
        { role: "user", content: "second question" },
      ],
      temperature: 0.5,
      metadata: { purpose: "test" },
    });
    expect(response.output_text).not.toBe("");
    expect(response).toMatchObject({
      instructions: "Be brief items-marker",
      temperature: 0.5,
      metadata: { purpose: "test" },
    });
    const [upstream] = await upstreamWith("items-marker");
    expect(upstream!.body!.messages).toEqual([
      { role: "system", content: "Be brief items-marker" },
      { role: "user", content: [{ type: "text", text: "first question" }] },
      { role: "assistant", content: "first answer" },
      { role: "user", content: "second question" },
    ]);
    expect(upstream!.body).not.toHaveProperty("metadata");
  });

  it("streams the event sequence with deltas that make the final text", async () => {
    const stream = await client.responses.create({ model: "deepseek-chat", input: "Tell me a story", stream: true });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = events.map((event) => event.type);
    expect(types.slice(0, 4)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ]);
    expect(types.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const deltas = events.flatMap((event) => (event.type === "response.output_text.delta" ? [event.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    const completed = events.at(-1)!;
    if (completed.type !== "response.completed") throw new Error("no completed event");
    const message = completed.response.output[0]!;
    expect(message.type === "message" && message.content[0]).toMatchObject({ text: deltas.join("") });
    expect(completed.response.usage!.output_tokens).toBeGreaterThan(0);
    const stored = await client.responses.retrieve(completed.response.id);
    expect(stored.output_text).toBe(deltas.join(""));
  });

  it("ends a stream that breaks after output with response.failed and an error the SDK raises", async () => {
    const stream = await client.responses.create({ model: "qwen-plus", input: "[sim:cut_after=3]", stream: true });
    const types: string[] = [];
    await expect(
      (async () => {
        for await (const event of stream) types.push(event.type);
      })(),
    ).rejects.toThrow();
    expect(types).toContain("response.output_text.delta");
    expect(types.at(-1)).toBe("response.failed");
  });

  it("answers a failure before any output as an HTTP error", async () => {
    const failing = client.responses.create({ model: translatedModel, input: "[sim:status=400]", stream: true });
    await expect(failing).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("streams with the SDK's .stream helper", async () => {
    const stream = client.responses.stream({ model: translatedModel, input: "Say hello" });
    let text = "";
    stream.on("response.output_text.delta", (event) => {
      text += event.delta;
    });
    const final = await stream.finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output_text).toBe(text);
  });

  it("calls a function and continues from its output with previous_response_id", async () => {
    const first = await client.responses.create({
      model: translatedModel,
      input: "Weather in Paris?",
      tools: [weather],
    });
    const call = first.output.find((item) => item.type === "function_call");
    if (call?.type !== "function_call") throw new Error("no function call");
    expect(call.name).toBe("get_weather");
    expect(call.id).toMatch(/^fc_/);
    expect(JSON.parse(call.arguments)).toHaveProperty("city");

    const second = await client.responses.create({
      model: translatedModel,
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output: '{"temperature":"21C"}' }],
      tools: [weather],
    });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.output_text.length).toBeGreaterThan(0);
    const [upstream] = (await upstreamWith("21C")).slice(-1);
    const messages = upstream!.body!.messages as { role: string; tool_call_id?: string; tool_calls?: unknown[] }[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
    expect(messages[1]!.tool_calls).toHaveLength(1);
    expect(messages[2]!.tool_call_id).toBe(call.call_id);
  });

  it("streams a function call as item and arguments events", async () => {
    const stream = await client.responses.create({
      model: translatedModel,
      input: "Weather in Rome?",
      tools: [weather],
      stream: true,
    });
    const events = [];
    for await (const event of stream) events.push(event);
    const added = events.find((event) => event.type === "response.output_item.added");
    expect(added?.type === "response.output_item.added" && added.item.type).toBe("function_call");
    const deltas = events.flatMap((event) =>
      event.type === "response.function_call_arguments.delta" ? [event.delta] : [],
    );
    const done = events.find((event) => event.type === "response.function_call_arguments.done");
    expect(done?.type === "response.function_call_arguments.done" && done.arguments).toBe(deltas.join(""));
    expect(events.at(-1)!.type).toBe("response.completed");
  });

  it("sends text.format json_schema to the vendor as response_format", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    await client.responses.create({
      model: translatedModel,
      input: "json-schema-marker",
      text: { format: { type: "json_schema", name: "reply", schema, strict: true } },
    });
    const [upstream] = await upstreamWith("json-schema-marker");
    expect(upstream!.body!.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "reply", schema, strict: true },
    });
  });

  it("marks a length cut incomplete", async () => {
    const response = await client.responses.create({
      model: translatedModel,
      input: "long answer [sim:tokens=200]",
      max_output_tokens: 16,
    });
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
  });

  it("retrieves and deletes a stored response, scoped to its account", async () => {
    const created = await client.responses.create({ model: translatedModel, input: "Remember me" });
    const retrieved = await client.responses.retrieve(created.id);
    expect({ ...retrieved }).toEqual({ ...created });
    await expect(otherClient.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(otherClient.responses.delete(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(
      otherClient.responses.create({ model: translatedModel, input: "hi", previous_response_id: created.id }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const deleted: unknown = await client.responses.delete(created.id);
    expect(deleted).toMatchObject({ id: created.id, object: "response.deleted", deleted: true });
    await expect(client.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client.responses.retrieve("resp_unknown")).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("keeps stored responses in ledger's Postgres: they survive a flush of the gateway's Redis keys", async () => {
    const created = await client.responses.create({ model: translatedModel, input: "Keep me durable" });
    const redis = await connectTestRedis();
    try {
      for await (const keys of redis.scanIterator({ MATCH: `${stack.namespace}:*`, COUNT: 500 })) {
        if (keys.length > 0) await redis.del(keys);
      }
    } finally {
      await redis.quit();
    }
    expect({ ...(await client.responses.retrieve(created.id)) }).toEqual({ ...created });
    const followUp = await client.responses.create({
      model: translatedModel,
      input: "durable follow-up",
      previous_response_id: created.id,
    });
    expect(followUp.status).toBe("completed");
    const [upstream] = await upstreamWith("durable follow-up");
    expect(JSON.stringify(upstream!.body!.messages)).toContain("Keep me durable");
    const rows = await queryRows<{ stored_bytes: number; expires_at: Date }>(
      stack.databaseUrl,
      "SELECT stored_bytes, expires_at FROM ledger.responses WHERE response_id = $1",
      [created.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.stored_bytes).toBeGreaterThan(0);
    expect(new Date(rows[0]!.expires_at).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
  });

  it("refuses to store an input over the stored-size limit with a 400, before any vendor call; store false serves it", async () => {
    // A 5 MB image: over the 4 MB a stored conversation may hold by default.
    const image = `data:image/png;base64,${bulkyPng(64, 64, 5 * 1024 * 1024).toString("base64")}`;
    const input = [
      {
        role: "user" as const,
        content: [
          { type: "input_text" as const, text: "too-big-to-store" },
          { type: "input_image" as const, image_url: image, detail: "auto" as const },
        ],
      },
    ];
    const refused = await client.responses.create({ model: translatedModel, input }).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused).toMatchObject({ code: "input_too_large_to_store", param: "store" });
    expect(await upstreamWith("too-big-to-store")).toHaveLength(0);
    const served = await client.responses.create({ model: translatedModel, input, store: false });
    expect(served.status).toBe("completed");
  });

  it("refuses a continuation from an account just refused for its balance before anything is looked up, relayed or translated", async () => {
    const unpaid = await stack.createAccount({ group: "premium", creditYuan: 0 });
    const unpaidClient = new OpenAI({ baseURL: stack.baseUrl, apiKey: unpaid.api_key, maxRetries: 0 });
    const first = await unpaidClient.responses
      .create({ model: "gpt-5", input: "hi" })
      .catch((caught: unknown) => caught);
    expect(first).toMatchObject({ status: 429, code: "insufficient_quota" });
    // A response id that names nothing: had ledger been asked, the answer would be its 404.
    for (const model of ["gpt-5", translatedModel]) {
      const continued = await unpaidClient.responses
        .create({ model, input: "unpaid-continuation", previous_response_id: "resp_never_stored" })
        .catch((caught: unknown) => caught);
      expect(continued).toMatchObject({ status: 429, code: "insufficient_quota" });
      expect((continued as Error).message).toContain("your last request could not be paid for");
    }
    expect(await upstreamWith("unpaid-continuation")).toHaveLength(0);
  });

  it("does not keep a response with store false", async () => {
    const created = await client.responses.create({ model: translatedModel, input: "Forget me", store: false });
    expect(created).toMatchObject({ store: false });
    await expect(client.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it.each([["claude-sonnet-4-6"], ["gemini-2.5-flash"]])("serves %s the same way", async (model) => {
    const response = await client.responses.create({ model, instructions: "Be kind", input: "Say hello" });
    expect(response.status).toBe("completed");
    expect(response.output_text.length).toBeGreaterThan(0);
    const stream = await client.responses.create({ model, input: "Say hello", stream: true });
    const types = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ["a missing input", { model: translatedModel }, "input"],
    ["a tool without a type", { model: translatedModel, input: "hi", tools: [{ name: "x" }] }, "tools[0].type"],
    [
      "a function tool without a name",
      { model: translatedModel, input: "hi", tools: [{ type: "function" }] },
      "tools[0].name",
    ],
    ["a temperature above 2", { model: "gpt-4o-mini", input: "hi", temperature: 3 }, "temperature"],
    ["a top_p above 1", { model: "gpt-4o-mini", input: "hi", top_p: 1.5 }, "top_p"],
    ["a zero max_output_tokens", { model: "gpt-4o-mini", input: "hi", max_output_tokens: 0 }, "max_output_tokens"],
    [
      "an unknown text format",
      { model: translatedModel, input: "hi", text: { format: { type: "xml" } } },
      "text.format.type",
    ],
    [
      "a json_schema format without schema",
      { model: translatedModel, input: "hi", text: { format: { type: "json_schema", name: "x" } } },
      "text.format.schema",
    ],
    ["an unknown item", { model: translatedModel, input: [{ type: "function_call_output" }] }, "input[0]"],
    ["an empty input list", { model: translatedModel, input: [] }, "input"],
    ["a non-boolean store", { model: "gpt-4o-mini", input: "hi", store: "yes" }, "store"],
    [
      "an unknown reasoning effort",
      { model: translatedModel, input: "hi", reasoning: { effort: "huge" } },
      "reasoning.effort",
    ],
    [
      "a tool_choice naming no tool",
      { model: translatedModel, input: "hi", tool_choice: { type: "function", name: "nope" } },
      "tool_choice",
    ],
  ];
  it.each(invalid)("refuses %s with a 400 naming the parameter", async (_name, body, param) => {
    const error = await client.responses.create(body as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
  });
});

describe("reasoning on the Responses API", () => {
  it("sends reasoning to an OpenAI reasoning model as written, on its Responses API, and reports its reasoning tokens", async () => {
    const response = await client.responses.create({
      model: "gpt-5.6-terra",
      input: "responses effort marker-1",
      reasoning: { effort: "low", summary: "auto" },
      max_output_tokens: 400,
    });
    expect(response.reasoning).toEqual({ effort: "low", summary: "auto" });
    expect(response.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const [upstream] = await upstreamWith("responses effort marker-1");
    expect(upstream!.path).toBe("/v1/responses");
    expect(upstream!.body).toMatchObject({ reasoning: { effort: "low", summary: "auto" }, max_output_tokens: 400 });
  });

  it("maps reasoning.effort to Claude's and Gemini's thinking budgets and returns the thinking as a reasoning item", async () => {
    for (const [model, marker] of [
      ["claude-sonnet-4-6", "responses claude thinks"],
      ["gemini-2.5-flash", "responses gemini thinks"],
    ] as const) {
      const response = await client.responses.create({ model, input: marker, reasoning: { effort: "medium" } });
      const [reasoning, message] = response.output;
      expect(reasoning).toMatchObject({ type: "reasoning", summary: [{ type: "summary_text" }] });
      expect((reasoning as OpenAI.Responses.ResponseReasoningItem).summary[0]!.text).toContain(marker);
      expect(message).toMatchObject({ type: "message", role: "assistant" });
    }
    const [toClaude] = await upstreamWith("responses claude thinks");
    expect(toClaude!.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 8192 } });
    const [toGemini] = await upstreamWith("responses gemini thinks");
    expect(toGemini!.body!.generationConfig).toMatchObject({
      thinkingConfig: { thinkingBudget: 8192, includeThoughts: true },
    });
  });

  it("streams a reasoner's thinking as reasoning summary events before the message, and takes it back as input", async () => {
    const stream = await client.responses.create({
      model: "deepseek-reasoner",
      input: "responses stream thinks marker-3",
      tools: [weather],
      stream: true,
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((event) => event.type);
    expect(types.indexOf("response.reasoning_summary_part.added")).toBeGreaterThan(0);
    expect(types.indexOf("response.reasoning_summary_text.delta")).toBeLessThan(
      types.indexOf("response.output_item.done"),
    );
    const deltas = events.flatMap((event) =>
      event.type === "response.reasoning_summary_text.delta" ? [event.delta] : [],
    );
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    const [reasoning, ...rest] = completed.response.output;
    expect((reasoning as OpenAI.Responses.ResponseReasoningItem).summary[0]!.text).toBe(deltas.join(""));
    const call = rest.find((item) => item.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toBeDefined();

    // A client carrying the conversation itself sends the output items back, reasoning included.
    const next = await client.responses.create({
      model: "deepseek-reasoner",
      input: [
        { role: "user", content: "responses stream thinks marker-3" },
        ...completed.response.output,
        { type: "function_call_output", call_id: call.call_id, output: "sunny" },
      ] as OpenAI.Responses.ResponseInput,
      tools: [weather],
    });
    expect(next.status).toBe("completed");
    const sent = (await upstreamWith("responses stream thinks marker-3")).at(-1)!;
    const assistant = (sent.body!.messages as { role: string; reasoning_content?: string }[]).find(
      (turn) => turn.role === "assistant",
    );
    expect(assistant!.reasoning_content).toBe(deltas.join(""));
  });
});

describe("coding agents (Codex) on the chat path", () => {
  /** A turn as Codex sends one: developer and user messages, four tool types, its own fields. */
  const codexTurn = (model: string, marker: string) => ({
    model,
    input: [
      { type: "message", role: "developer", content: [{ type: "input_text", text: "You are a coding agent." }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: `Add hello.txt ${marker}` }] },
    ],
    tools: codexTools,
    tool_choice: { type: "custom", name: "apply_patch" },
    parallel_tool_calls: false,
    reasoning: { effort: "low", summary: "auto" },
    store: false,
    include: ["reasoning.encrypted_content"],
    text: { verbosity: "low" },
    prompt_cache_key: `thread-${marker}`,
    client_metadata: { "x-codex-turn": "1" },
  });

  // gemini-3-flash signs its calls and refuses a loop whose calls come back unsigned.
  it.each([["claude-sonnet-4-6"], ["gemini-2.5-flash"], ["gemini-3-flash"], ["deepseek-chat"]])(
    "streams a Codex turn on %s: the freeform tool's call comes back as custom_tool_call, and its output is answered in text",
    async (model) => {
      const marker = `codex-custom-${model}`;
      const first = await streamResponse(stack.baseUrl, apiKey, codexTurn(model, marker));
      expect(first.status).toBe(200);
      expect(first.headers.get("x-gateway-dropped-tools")).toBe("web_search");
      const output = completedResponse(first).output;
      const call = output.find((item) => item.type === "custom_tool_call")!;
      expect(call).toMatchObject({ name: "apply_patch", status: "completed", call_id: expect.any(String) });
      expect(call.input).toEqual(expect.any(String));
      expect(call.input).not.toBe("");
      const deltas = first.events.flatMap((event) =>
        event.type === "response.custom_tool_call_input.delta" ? [event.delta] : [],
      );
      expect(deltas.join("")).toBe(call.input);
      expect(first.events.find((event) => event.type === "response.custom_tool_call_input.done")).toMatchObject({
        input: call.input,
      });

      const [sent] = await upstreamWith(marker);
      expect(JSON.stringify(sent!.body)).not.toContain("web_search");
      expect(JSON.stringify(sent!.body)).toContain("Lark grammar");

      const second = await streamResponse(stack.baseUrl, apiKey, {
        ...codexTurn(model, marker),
        tool_choice: "auto",
        input: [
          ...codexTurn(model, marker).input,
          ...output,
          { type: "custom_tool_call_output", call_id: call.call_id, output: "Done!" },
        ],
      });
      expect(second.status).toBe(200);
      const answer = completedResponse(second).output.find((item) => item.type === "message");
      expect(JSON.stringify(answer)).toContain("Received tool result: Done!");
    },
  );

  it("keeps Claude's signed thinking through a store:false loop in reasoning.encrypted_content", async () => {
    const marker = "codex-claude-signed-thinking";
    const turn = { ...codexTurn("claude-sonnet-4-6", marker), tool_choice: { type: "function", name: "exec_command" } };
    const first = await createResponse(stack.baseUrl, apiKey, turn);
    expect(first.status).toBe(200);
    const output = first.body.output as { type: string; call_id?: string; encrypted_content?: string }[];
    const reasoning = output.find((item) => item.type === "reasoning")!;
    expect(reasoning.encrypted_content).toEqual(expect.any(String));
    const call = output.find((item) => item.type === "function_call")!;

    const second = await createResponse(stack.baseUrl, apiKey, {
      ...turn,
      tool_choice: "auto",
      input: [...turn.input, ...output, { type: "function_call_output", call_id: call.call_id, output: "ok" }],
    });
    // The simulated Claude refuses a tool result whose assistant turn lost its signed thinking.
    expect(second.status).toBe(200);
    const sent = (await upstreamWith(marker)).at(-1)!;
    const assistant = (sent.body!.messages as { role: string; content: { type: string; signature?: string }[] }[]).find(
      (message) => message.role === "assistant",
    )!;
    expect(assistant.content[0]).toMatchObject({ type: "thinking", signature: expect.any(String) });
  });

  it.each([[false], [true]])(
    "keeps Claude's signed thinking in the stored turn for previous_response_id (first turn streamed: %s)",
    async (streamed) => {
      const marker = `stored-claude-thinking-${streamed}`;
      const turn = {
        model: "claude-sonnet-4-6",
        input: `Look it up ${marker}`,
        tools: [weather],
        tool_choice: { type: "function", name: "get_weather" },
        reasoning: { effort: "low" },
      };
      const first = streamed
        ? (completedResponse(await streamResponse(stack.baseUrl, apiKey, turn)) as Record<string, unknown>)
        : (await createResponse(stack.baseUrl, apiKey, turn)).body;
      const call = (first.output as { type: string; call_id: string }[]).find((item) => item.type === "function_call")!;
      const second = await createResponse(stack.baseUrl, apiKey, {
        model: "claude-sonnet-4-6",
        previous_response_id: first.id,
        input: [{ type: "function_call_output", call_id: call.call_id, output: "sunny" }],
        tools: [weather],
        reasoning: { effort: "low" },
      });
      // The simulated Claude refuses a tool result whose assistant turn lost its signed thinking.
      expect(second.status).toBe(200);
      const sent = (await upstreamWith(marker)).at(-1)!;
      const assistant = (sent.body!.messages as { role: string; content: { type: string }[] }[]).find(
        (message) => message.role === "assistant",
      )!;
      expect(assistant.content[0]).toMatchObject({ type: "thinking", signature: expect.any(String) });
    },
  );

  it.each([
    ["claude-sonnet-4-6", "turn-1-gpt-5"],
    ["gemini-2.5-flash", "turn-1-default-model"],
    ["deepseek-chat", "turn-1-gpt-5"],
  ] as const)("serves %s Codex CLI's captured %s and its next turn", async (model, capture) => {
    const body = { ...codexCapture(capture), model };
    const first = await streamResponse(stack.baseUrl, apiKey, body);
    expect(first.status).toBe(200);
    const output = completedResponse(first).output;
    const results = output.flatMap((item) =>
      item.type === "function_call" || item.type === "custom_tool_call"
        ? [{ type: `${item.type}_output`, call_id: item.call_id, output: "ok" }]
        : [],
    );
    const second = await streamResponse(stack.baseUrl, apiKey, {
      ...body,
      input: [...body.input, ...output, ...results],
    });
    expect(second.status).toBe(200);
    expect(completedResponse(second).output.some((item) => item.type === "message")).toBe(true);
  });
});
