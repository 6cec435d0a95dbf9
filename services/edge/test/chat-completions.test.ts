import { eventually, simulatorRequests, startTestStack, type TestStack, usageRecordOf } from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { multiplierOf } from "./media-fixtures.js";
import { shippedModel, shippedPrice } from "./shipped-catalogue.js";

let stack: TestStack;
let client: OpenAI;
// A key of the default group, whose prices are the catalogue's own.
let defaultClient: OpenAI;

const usageRecord = (requestId: string) => usageRecordOf(stack.databaseUrl, requestId);

beforeAll(async () => {
  stack = await startTestStack();
  // Enough to reserve the worst case (every output token at the model's price) of each of
  // the lineup's flagship models in turn.
  const account = await stack.createAccount({ group: "premium", creditYuan: 10_000 });
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  const defaultAccount = await stack.createAccount({ group: "default" });
  defaultClient = new OpenAI({ baseURL: stack.baseUrl, apiKey: defaultAccount.api_key, maxRetries: 0 });
});
afterAll(async () => {
  await stack?.teardown();
});

describe("models through the running stack", () => {
  it("lists the key's group with owner, context window and endpoints", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    const deepseek = models.find((model) => model.id === "deepseek-v4-flash");
    expect(deepseek).toMatchObject({
      object: "model",
      owned_by: "deepseek",
      context_window: 1000000,
      endpoints: ["/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/messages"],
    });
    expect(new Set(models.map((model) => model.owned_by))).toEqual(
      new Set(["openai", "anthropic", "google", "xai", "deepseek", "alibaba", "moonshot"]),
    );
  });

  it("prices every listed model for the key's group: a premium key sees its group's multiplier applied", async () => {
    type Priced = OpenAI.Models.Model & { pricing: Record<string, unknown> };
    const listed = async (sdk: OpenAI) => {
      const models = new Map<string, Priced>();
      for await (const model of sdk.models.list()) models.set(model.id, model as Priced);
      return models;
    };
    const [premium, standard] = [await listed(client), await listed(defaultClient)];
    const premiumBasisPoints = await multiplierOf(stack.databaseUrl, "premium");
    expect(premiumBasisPoints).toBe(15_000);
    // Yuan per million tokens from micro-yuan, times the group's multiplier.
    const yuan = (micros: number, basisPoints: number) => String((micros * basisPoints) / 1e10);
    const price = shippedPrice("gpt-4o-mini", "default");
    const expected = (basisPoints: number) => ({
      currency: "CNY",
      unit: "1M tokens",
      group_multiplier: basisPoints / 10_000,
      prompt: yuan(price.input, basisPoints),
      completion: yuan(price.output, basisPoints),
      input_cache_read: yuan(price.cache_read!, basisPoints),
      // Cache writes the catalogue does not price apart are billed at the prompt price.
      input_cache_write: yuan(price.input, basisPoints),
    });
    expect(standard.get("gpt-4o-mini")!.pricing).toEqual(expected(10_000));
    expect(premium.get("gpt-4o-mini")!.pricing).toEqual(expected(premiumBasisPoints));
    expect(Number(premium.get("gpt-4o-mini")!.pricing.prompt)).toBeGreaterThan(
      Number(standard.get("gpt-4o-mini")!.pricing.prompt),
    );
    for (const model of premium.values()) {
      expect([model.id, model.pricing]).toEqual([
        model.id,
        expect.objectContaining({ currency: "CNY", prompt: expect.stringMatching(/^\d+(\.\d+)?$/) }),
      ]);
    }
    const imagen = shippedModel("imagen-4.0-generate-001", "default").images!.prices["1024x1024"]!;
    expect(premium.get("imagen-4.0-generate-001")!.pricing.image).toContainEqual({
      size: "1024x1024",
      quality: "standard",
      price: yuan(imagen.standard!, premiumBasisPoints),
    });
    // Billed by token: text input, image input and image output per million tokens, no per-image prices.
    const sunburst = shippedModel("gpt-image-2.6-sunburst", "default");
    expect(premium.get("gpt-image-2.6-sunburst")!.pricing).toMatchObject({
      prompt: yuan(shippedPrice("gpt-image-2.6-sunburst", "default").input, premiumBasisPoints),
      input_image: yuan(sunburst.images!.image_input_price!, premiumBasisPoints),
    });
    expect(premium.get("gpt-image-2.6-sunburst")!.pricing.image).toBeUndefined();
    const whisper = shippedModel("whisper-1", "default").audio!;
    expect(standard.get("whisper-1")!.pricing.audio_second).toBe(yuan(whisper.price_per_second, 10_000));
  });

  it("retrieves one model", async () => {
    const model = await client.models.retrieve("qwen-plus");
    expect(model).toMatchObject({ id: "qwen-plus", object: "model", owned_by: "alibaba" });
    const qwen = shippedPrice("qwen-plus", "premium");
    expect(model).toHaveProperty("pricing.prompt", String((qwen.input * 1.5) / 1e6));
    expect(model).toHaveProperty("pricing.group_multiplier", 1.5);
    expect(model).toHaveProperty("endpoints", [
      "/v1/chat/completions",
      "/v1/completions",
      "/v1/responses",
      "/v1/messages",
    ]);
  });

  it("lists /v1/responses for exactly the models that serve it: each answers a Responses request", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model as typeof model & { endpoints: string[] });
    const responders = models.filter((model) => model.endpoints.includes("/v1/responses"));
    // Every chat model, and the models OpenAI offers only on its Responses API (Codex).
    const responsesOnly = models.filter((model) => model.endpoints.join() === "/v1/responses").map((model) => model.id);
    expect(responsesOnly).toContain("gpt-5.3-codex");
    expect(responders.map((model) => model.id).sort()).toEqual(
      models
        .filter((model) => model.endpoints.includes("/v1/chat/completions"))
        .map((model) => model.id)
        .concat(responsesOnly)
        .sort(),
    );
    expect(responders.length).toBeGreaterThan(10);
    for (const model of responders) {
      const response = await client.responses.create({ model: model.id, input: "Say hello", store: false });
      expect([model.id, response.status]).toEqual([model.id, "completed"]);
    }
    const embedder = models.find((model) => model.id === "text-embedding-3-small")!;
    expect(embedder.endpoints).not.toContain("/v1/responses");
    await expect(client.responses.create({ model: embedder.id, input: "Say hello" })).rejects.toMatchObject({
      status: 400,
      code: "unsupported_model",
      error: expect.objectContaining({ message: "The model `text-embedding-3-small` does not serve /v1/responses." }),
    });
  });
});

describe("chat completions through the running stack", () => {
  it("answers a plain request and records its usage once", async () => {
    const completion = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Say hello" }],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]!.message.content).toMatch(/\w/);
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
    const record = await usageRecord(completion._request_id!);
    expect(record).toMatchObject({
      prompt_tokens: completion.usage!.prompt_tokens,
      completion_tokens: completion.usage!.completion_tokens,
      estimated: false,
      stream: false,
    });
    expect(Number(record.cost_micros)).toBeGreaterThan(0);
  });

  it("streams chunks, ends with [DONE] and gives the usage chunk when asked", async () => {
    const { data: stream, response } = await client.chat.completions
      .create({
        model: "deepseek-chat",
        messages: [{ role: "user", content: "Tell me a story" }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    expect(text.length).toBeGreaterThan(10);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === "stop")).toBe(true);
    const record = await usageRecord(response.headers.get("x-request-id")!);
    expect(record).toMatchObject({ completion_tokens: last.usage!.completion_tokens, stream: true, estimated: false });
  });

  it("asks the vendor for usage even when the client did not, and bills it", async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: "qwen-plus", messages: [{ role: "user", content: "usage check" }], stream: true })
      .withResponse();
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.choices.length > 0 && !("usage" in chunk))).toBe(true);
    const upstream = (await simulatorRequests(stack.simulatorUrl)).filter(
      (request) => (request.body?.messages as { content: string }[] | undefined)?.[0]?.content === "usage check",
    );
    expect(upstream).toHaveLength(1);
    expect(upstream[0]!.body!.stream_options).toEqual({ include_usage: true });
    const record = await usageRecord(response.headers.get("x-request-id")!);
    expect(record.completion_tokens).toBeGreaterThan(0);
    expect(record.estimated).toBe(false);
  });

  it("carries DeepSeek's logprobs back, streamed and not, and refuses them for Claude, which has none", async () => {
    const ask = {
      model: "deepseek-chat",
      messages: [{ role: "user" as const, content: "logprobs marker" }],
      max_tokens: 5,
      logprobs: true,
      top_logprobs: 2,
    };
    const completion = await client.chat.completions.create(ask);
    const { content, logprobs } = { ...completion.choices[0]!, ...completion.choices[0]!.message };
    expect(logprobs!.content!.map((entry) => entry.token).join("")).toBe(content);
    expect(logprobs!.content![0]).toMatchObject({ logprob: expect.any(Number), bytes: expect.any(Array) });
    expect(logprobs!.content![0]!.top_logprobs).toHaveLength(2);

    const streamed: string[] = [];
    for await (const chunk of await client.chat.completions.create({ ...ask, stream: true })) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) expect(choice.logprobs!.content![0]!.token).toBe(choice.delta.content);
      streamed.push(...(choice?.logprobs?.content ?? []).map((entry) => entry.token));
    }
    expect(streamed).toHaveLength(5);

    const refused = await client.chat.completions
      .create({ ...ask, model: "claude-sonnet-4-6" })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, param: "logprobs", code: "unsupported_parameter" });
  });

  it("relays tool calls, streamed and not", async () => {
    const tools = [
      {
        type: "function" as const,
        function: {
          name: "get_weather",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ];
    const messages = [{ role: "user" as const, content: "Weather in Paris?" }];
    const completion = await client.chat.completions.create({ model: "gpt-4o-mini", messages, tools });
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    expect(call.type === "function" && call.function.name).toBe("get_weather");

    const stream = await client.chat.completions.create({ model: "gpt-4o-mini", messages, tools, stream: true });
    let name = "";
    let argumentsText = "";
    for await (const chunk of stream) {
      for (const fragment of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += fragment.function?.name ?? "";
        argumentsText += fragment.function?.arguments ?? "";
      }
    }
    expect(name).toBe("get_weather");
    expect(JSON.parse(argumentsText)).toHaveProperty("city");
  });

  it("accepts the legacy functions API and answers with function_call", async () => {
    const functions = [{ name: "get_time", parameters: { type: "object", properties: { zone: { type: "string" } } } }];
    const messages = [{ role: "user" as const, content: "What time is it?" }];
    const completion = await client.chat.completions.create({ model: "deepseek-chat", messages, functions });
    expect(completion.choices[0]!.finish_reason).toBe("function_call");
    expect(completion.choices[0]!.message.function_call?.name).toBe("get_time");
    const followUp = await client.chat.completions.create({
      model: "deepseek-chat",
      functions,
      messages: [
        ...messages,
        { role: "assistant", content: null, function_call: completion.choices[0]!.message.function_call! },
        { role: "function", name: "get_time", content: "12:00" },
      ],
    });
    expect(followUp.choices[0]!.message.content).toContain("12:00");
    const stream = await client.chat.completions.create({ model: "deepseek-chat", messages, functions, stream: true });
    let argumentsText = "";
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      argumentsText += chunk.choices[0]?.delta.function_call?.arguments ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(JSON.parse(argumentsText)).toHaveProperty("zone");
    expect(finish).toBe("function_call");
  });

  it("cancels the vendor request when the client leaves mid-stream and bills what was delivered", async () => {
    const { data: stream, response } = await client.chat.completions
      .create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "long answer [sim:tokens=200] [sim:token_latency_ms=30]" }],
        stream: true,
      })
      .withResponse();
    let received = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) received += 1;
      if (received === 5) break;
    }
    const requestId = response.headers.get("x-request-id")!;
    const upstream = await eventually(async () => {
      const requests = await simulatorRequests(stack.simulatorUrl);
      return requests.find((request) => JSON.stringify(request.body).includes("long answer") && request.aborted);
    });
    expect(upstream.aborted).toBe(true);
    const record = await usageRecord(requestId);
    expect(record.estimated).toBe(true);
    expect(record.prompt_tokens).toBeGreaterThan(0);
    expect(record.completion_tokens).toBeGreaterThanOrEqual(5);
    expect(record.completion_tokens).toBeLessThan(200);
  });
});
