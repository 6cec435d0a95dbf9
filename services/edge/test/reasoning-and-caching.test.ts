import { priceUsage } from "@gateway/billing";
import {
  type SimulatedRequest,
  simulatorRequests,
  startTestStack,
  type TestStack,
  usageRecordOf,
} from "@gateway/stack";
import { type Content, GoogleGenAI, type Part } from "@google/genai";
import OpenAI from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionContentPartText,
  ChatCompletionMessageParam,
  ChatCompletionSystemMessageParam,
  ChatCompletionTool,
} from "openai/resources";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shippedPrice } from "./shipped-catalogue.js";

// Reasoning and prompt caching through OpenAI's chat API (the official openai SDK), for each
// vendor family's own way of doing them; Claude's thinking also through the Gemini API
// (@google/genai).

let stack: TestStack;
let client: OpenAI;
let gemini: GoogleGenAI;

const usageRecord = (requestId: string) => usageRecordOf(stack.databaseUrl, requestId);

async function upstreamWith(marker: string): Promise<SimulatedRequest[]> {
  return (await simulatorRequests(stack.simulatorUrl)).filter((request) =>
    JSON.stringify(request.body).includes(marker),
  );
}

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const weatherTool: ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

/** Claude's thinking blocks as the gateway renders them on OpenAI's shape. */
type WithThinking = { reasoning_content?: string; thinking_blocks?: { type: string; signature?: string }[] };

beforeAll(async () => {
  stack = await startTestStack();
  const account = await stack.createAccount({ group: "premium" });
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  gemini = new GoogleGenAI({
    apiKey: account.api_key,
    httpOptions: { baseUrl: new URL(stack.baseUrl).origin, apiVersion: "v1beta" },
  });
});
afterAll(async () => {
  await stack?.teardown();
});

describe("reasoning", () => {
  it("sends reasoning_effort to an OpenAI reasoning model and reports its reasoning tokens, billed as output", async () => {
    const { data: completion, response } = await client.chat.completions
      .create({
        model: "gpt-5.6-terra",
        messages: [{ role: "user", content: "effort marker-1" }],
        reasoning_effort: "low",
        max_tokens: 400,
      })
      .withResponse();
    const reasoningTokens = completion.usage!.completion_tokens_details!.reasoning_tokens!;
    expect(reasoningTokens).toBeGreaterThan(0);
    expect(completion.choices[0]!.message).not.toHaveProperty("reasoning_content");
    const [upstream] = await upstreamWith("effort marker-1");
    // Reasoning models refuse max_tokens: it goes as max_completion_tokens.
    expect(upstream!.body).toMatchObject({ reasoning_effort: "low", max_completion_tokens: 400 });
    expect(upstream!.body).not.toHaveProperty("max_tokens");

    const record = await usageRecord(response.headers.get("x-request-id")!);
    expect(record).toMatchObject({
      reasoning_tokens: reasoningTokens,
      completion_tokens: completion.usage!.completion_tokens,
    });
    const price = shippedPrice("gpt-5.6-terra", "premium");
    const expected = priceUsage({
      promptTokens: completion.usage!.prompt_tokens,
      completionTokens: completion.usage!.completion_tokens,
      inputPriceMicros: price.input,
      outputPriceMicros: price.output,
      multiplierBasisPoints: 15_000,
    });
    expect(BigInt(record.cost_micros)).toBe(expected);
  });

  it("counts xAI's reasoning, which xAI reports apart, in completion_tokens and bills it as output, streamed and not", async () => {
    const ask = { model: "grok-3-mini", reasoning_effort: "low", max_tokens: 6 } as const;
    const unary = await client.chat.completions
      .create({ ...ask, messages: [{ role: "user", content: "grok thinks marker-12" }] })
      .withResponse();
    const { data: stream, response } = await client.chat.completions
      .create({
        ...ask,
        messages: [{ role: "user", content: "grok streams marker-12" }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const streamed = {
      usage: (await collect(stream)).at(-1)!.usage!,
      requestId: response.headers.get("x-request-id")!,
    };
    const price = shippedPrice("grok-3-mini", "premium");
    for (const { usage, requestId } of [
      { usage: unary.data.usage!, requestId: unary.response.headers.get("x-request-id")! },
      streamed,
    ]) {
      const reasoningTokens = usage.completion_tokens_details!.reasoning_tokens!;
      expect(reasoningTokens).toBeGreaterThan(0);
      expect(usage.completion_tokens).toBe(6 + reasoningTokens);
      expect(usage.prompt_tokens + usage.completion_tokens).toBe(usage.total_tokens);
      const record = await usageRecord(requestId);
      expect(record).toMatchObject({ completion_tokens: usage.completion_tokens, reasoning_tokens: reasoningTokens });
      const expected = priceUsage({
        promptTokens: usage.prompt_tokens,
        completionTokens: usage.completion_tokens,
        cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
        inputPriceMicros: price.input,
        outputPriceMicros: price.output,
        cacheReadPriceMicros: price.cache_read ?? price.input,
        multiplierBasisPoints: 15_000,
      });
      expect(BigInt(record.cost_micros)).toBe(expected);
    }
  });

  it("passes DeepSeek's reasoning_content through, streamed and not, and sends it back only to vendors that take it", async () => {
    const ask: ChatCompletionMessageParam = { role: "user", content: "weather marker-2" };
    const first = await client.chat.completions.create({
      model: "deepseek-reasoner",
      messages: [ask],
      tools: [weatherTool],
    });
    const message = first.choices[0]!.message as (typeof first.choices)[0]["message"] & WithThinking;
    expect(message.reasoning_content).toContain("weather marker-2");
    expect(first.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
    const call = message.tool_calls![0]!;
    const history: ChatCompletionMessageParam[] = [
      ask,
      {
        role: "assistant",
        content: null,
        tool_calls: message.tool_calls,
        reasoning_content: message.reasoning_content,
      } as ChatCompletionMessageParam,
      { role: "tool", tool_call_id: call.id, content: "sunny" },
    ];

    const chunks = await collect(
      await client.chat.completions.create({ model: "deepseek-reasoner", messages: history, stream: true }),
    );
    const streamedReasoning = chunks
      .map((chunk) => (chunk.choices[0]?.delta as WithThinking | undefined)?.reasoning_content ?? "")
      .join("");
    expect(streamedReasoning.length).toBeGreaterThan(0);
    await client.chat.completions.create({ model: "gpt-4o-mini", messages: history });

    const upstream = await upstreamWith("weather marker-2");
    const sentBack = (request: SimulatedRequest) =>
      (request.body!.messages as { role: string; reasoning_content?: string }[]).find(
        (turn) => turn.role === "assistant",
      );
    const toDeepSeek = upstream.filter((request) => request.body!.model === "deepseek-v4-flash").at(-1)!;
    const toOpenAI = upstream.find((request) => request.body!.model === "gpt-4o-mini")!;
    expect(sentBack(toDeepSeek)!.reasoning_content).toBe(message.reasoning_content);
    expect(sentBack(toOpenAI)).not.toHaveProperty("reasoning_content");
  });

  it("maps reasoning_effort to Claude's extended thinking and keeps the signatures through a tool loop", async () => {
    const ask: ChatCompletionMessageParam = { role: "user", content: "claude thinks marker-3" };
    const chunks = await collect(
      await client.chat.completions.create({
        model: "claude-sonnet-4-6",
        messages: [ask],
        tools: [weatherTool],
        reasoning_effort: "low",
        max_tokens: 500,
        stream: true,
      }),
    );
    const [upstream] = await upstreamWith("claude thinks marker-3");
    expect(upstream!.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 2048 }, max_tokens: 2548 });
    const deltas = chunks.map(
      (chunk) => chunk.choices[0]?.delta as (WithThinking & (typeof chunk.choices)[0]["delta"]) | undefined,
    );
    const reasoning = deltas.map((delta) => delta?.reasoning_content ?? "").join("");
    const signature = deltas
      .flatMap((delta) => delta?.thinking_blocks ?? [])
      .find((block) => block.signature)!.signature;
    expect(reasoning).toContain("claude thinks marker-3");
    expect(signature).toBeTruthy();

    const completion = await client.chat.completions.create({
      model: "claude-sonnet-4-6",
      messages: [ask],
      tools: [weatherTool],
      reasoning_effort: "low",
      max_tokens: 500,
    });
    const message = completion.choices[0]!.message as (typeof completion.choices)[0]["message"] & WithThinking;
    expect(message.thinking_blocks).toEqual([{ type: "thinking", thinking: message.reasoning_content, signature }]);
    const call = message.tool_calls![0]!;
    const answer = await client.chat.completions.create({
      model: "claude-sonnet-4-6",
      reasoning_effort: "low",
      max_tokens: 500,
      tools: [weatherTool],
      messages: [
        ask,
        {
          role: "assistant",
          content: null,
          tool_calls: message.tool_calls,
          thinking_blocks: message.thinking_blocks,
        } as ChatCompletionMessageParam,
        { role: "tool", tool_call_id: call.id, content: "cloudy" },
      ],
    });
    // The simulated Claude refuses a tool loop whose thinking did not come back signed.
    expect(answer.choices[0]!.message.content).toMatch(/Received tool result: cloudy/);
  });
});

describe("Claude's thinking through the Gemini API", () => {
  const tools = [
    {
      functionDeclarations: [
        { name: "get_weather", parametersJsonSchema: weatherTool.function.parameters as Record<string, unknown> },
      ],
    },
  ];

  /** One turn as a Gemini client keeps it: every part of every streamed event, in order. */
  async function turnOf(contents: Content[], stream: boolean, includeThoughts: boolean): Promise<Content> {
    const request = {
      model: "claude-sonnet-4-6",
      contents,
      config: { tools, thinkingConfig: { thinkingBudget: 1024, includeThoughts } },
    };
    if (!stream) return (await gemini.models.generateContent(request)).candidates![0]!.content!;
    const parts: Part[] = [];
    for await (const event of await gemini.models.generateContentStream(request)) {
      parts.push(...(event.candidates?.[0]?.content?.parts ?? []));
    }
    return { role: "model", parts };
  }

  it.each([
    [false, true],
    [true, true],
    [false, false],
    [true, false],
  ])("carries the signed thinking through a tool loop (streamed: %s, thoughts shown: %s)", async (stream, shown) => {
    const marker = `claude thinks via gemini ${stream} ${shown}`;
    const contents: Content[] = [{ role: "user", parts: [{ text: marker }] }];
    const turn = await turnOf(contents, stream, shown);
    const thoughts = turn.parts!.filter((part) => part.thought);
    const signed = thoughts.filter((part) => part.thoughtSignature);
    expect(signed).toHaveLength(1);
    // Shown: Claude's own signature on the thought; hidden: no thought text, an opaque signature.
    const thinking = thoughts.map((part) => part.text).join("");
    if (shown) expect(thinking).toContain("claude thinks via gemini");
    else expect(thinking).toBe("");
    const call = turn.parts!.find((part) => part.functionCall)!.functionCall!;
    contents.push(turn, {
      role: "user",
      parts: [{ functionResponse: { id: call.id, name: call.name!, response: { result: "cloudy" } } }],
    });
    const answer = await turnOf(contents, stream, shown);
    // The simulated Claude refuses a tool loop whose thinking did not come back as it wrote it.
    expect(answer.parts!.map((part) => (part.thought ? "" : (part.text ?? ""))).join("")).toMatch(
      /Received tool result: .*cloudy/,
    );
    const [, followUp] = await upstreamWith(marker);
    const assistant = (followUp!.body as { messages: { role: string; content: { type: string }[] }[] }).messages[1]!;
    expect(assistant.content.map((block) => block.type)).toEqual(["thinking", "tool_use"]);
    if (shown) expect(assistant.content[0]).toMatchObject({ signature: signed[0]!.thoughtSignature });
  });
});

describe("Claude models that think only adaptively", () => {
  it("get adaptive thinking with an effort, and none of the sampling parameters Opus 4.7 refuses", async () => {
    const completion = await client.chat.completions.create({
      model: "claude-opus-4-7",
      messages: [{ role: "user", content: "adaptive opus marker-9" }],
      reasoning_effort: "high",
      temperature: 0.3,
      top_p: 0.8,
    });
    const message = completion.choices[0]!.message as (typeof completion.choices)[0]["message"] & WithThinking;
    expect(message.reasoning_content).toContain("adaptive opus marker-9");
    const [upstream] = await upstreamWith("adaptive opus marker-9");
    expect(upstream!.body).toMatchObject({ thinking: { type: "adaptive" }, output_config: { effort: "high" } });
    for (const refused of ["temperature", "top_p", "top_k"]) expect(upstream!.body).not.toHaveProperty(refused);
  });
});

describe("Gemini thinking and implicit caching", () => {
  it("maps reasoning_effort to a thinking budget and shows the thought parts as reasoning_content", async () => {
    const completion = await client.chat.completions.create({
      model: "gemini-2.5-flash",
      messages: [{ role: "user", content: "gemini thinks marker-7" }],
      reasoning_effort: "medium",
    });
    const message = completion.choices[0]!.message as (typeof completion.choices)[0]["message"] & WithThinking;
    expect(message.reasoning_content).toContain("gemini thinks marker-7");
    expect(message.content).toMatch(/^Simulated answer from gemini-2.5-flash/);
    expect(completion.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
    const [upstream] = await upstreamWith("gemini thinks marker-7");
    expect(upstream!.body!.generationConfig).toMatchObject({
      thinkingConfig: { thinkingBudget: 8192, includeThoughts: true },
    });
  });

  it("reports Gemini's cachedContentTokenCount as cached_tokens", async () => {
    const context = "Gemini keeps this repeated context in its implicit cache. ".repeat(100);
    const ask = (question: string) =>
      client.chat.completions.create({
        model: "gemini-2.5-flash",
        messages: [
          { role: "system", content: context },
          { role: "user", content: question },
        ],
      });
    await ask("first marker-8");
    const second = await ask("second marker-8");
    expect(second.usage!.prompt_tokens_details!.cached_tokens).toBeGreaterThanOrEqual(1024);
  });
});

describe("prompt caching", () => {
  const longContext = "Shared instructions the vendor caches between requests. ".repeat(100);

  it("reports OpenAI's automatic cache as cached_tokens and bills them at the cache-read rate", async () => {
    const ask = (question: string) =>
      client.chat.completions
        .create({
          model: "gpt-4o-mini",
          messages: [
            { role: "system", content: longContext },
            { role: "user", content: question },
          ],
        })
        .withResponse();
    const { data: first } = await ask("first marker-4");
    expect(first.usage!.prompt_tokens_details!.cached_tokens).toBe(0);
    const { data: second, response } = await ask("second marker-4");
    const cached = second.usage!.prompt_tokens_details!.cached_tokens!;
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect(cached).toBeLessThan(second.usage!.prompt_tokens);

    const record = await usageRecord(response.headers.get("x-request-id")!);
    expect(record).toMatchObject({ cached_tokens: cached, cache_creation_tokens: 0 });
    const price = shippedPrice("gpt-4o-mini", "premium");
    const expected = priceUsage({
      promptTokens: second.usage!.prompt_tokens,
      completionTokens: second.usage!.completion_tokens,
      cachedTokens: cached,
      inputPriceMicros: price.input,
      outputPriceMicros: price.output,
      cacheReadPriceMicros: price.cache_read ?? price.input,
      multiplierBasisPoints: 15_000,
    });
    expect(BigInt(record.cost_micros)).toBe(expected);
  });

  it("reads DeepSeek's prompt_cache_hit_tokens as cached_tokens", async () => {
    const ask = (question: string) =>
      client.chat.completions.create({
        model: "deepseek-chat",
        messages: [
          { role: "system", content: longContext },
          { role: "user", content: question },
        ],
      });
    await ask("first marker-5");
    const second = await ask("second marker-5");
    expect(second.usage!.prompt_tokens_details!.cached_tokens).toBeGreaterThanOrEqual(1024);
  });

  it("passes cache_control on text parts to Claude and reports its cache reads and writes", async () => {
    const ask = (question: string) =>
      client.chat.completions.create({
        model: "claude-sonnet-4-6",
        messages: [
          {
            role: "system",
            content: [{ type: "text", text: longContext, cache_control: { type: "ephemeral" } } as never],
          },
          { role: "user", content: question },
        ],
      });
    const first = await ask("first marker-6");
    const details = (usage: OpenAI.CompletionUsage) =>
      usage.prompt_tokens_details as { cached_tokens: number; cache_write_tokens?: number };
    expect(details(first.usage!).cache_write_tokens).toBeGreaterThanOrEqual(1024);
    const second = await ask("second marker-6");
    expect(details(second.usage!).cached_tokens).toBe(details(first.usage!).cache_write_tokens);
    const [upstream] = await upstreamWith("first marker-6");
    expect(upstream!.body!.system).toEqual([{ type: "text", text: longContext, cache_control: { type: "ephemeral" } }]);
  });
  /** Streams with the final usage chunk; returns the client's usage and the request's id. */
  async function streamUsage(model: string, system: ChatCompletionSystemMessageParam["content"], question: string) {
    const { data: stream, response } = await client.chat.completions
      .create({
        model,
        messages: [
          { role: "system", content: system },
          { role: "user", content: question },
        ],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const usage = (await collect(stream)).at(-1)!.usage!;
    return { usage, requestId: response.headers.get("x-request-id")! };
  }

  /** The ledger's charge for a request, checked against the price of the client's usage at its cache rates. */
  async function expectBilledAtCacheRates(model: string, requestId: string, usage: OpenAI.CompletionUsage) {
    const details = usage.prompt_tokens_details as { cached_tokens: number; cache_write_tokens?: number };
    const record = await usageRecord(requestId);
    expect(record).toMatchObject({
      cached_tokens: details.cached_tokens,
      cache_creation_tokens: details.cache_write_tokens ?? 0,
    });
    const price = shippedPrice(model, "premium");
    const expected = priceUsage({
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      cachedTokens: details.cached_tokens,
      cacheCreationTokens: details.cache_write_tokens ?? 0,
      inputPriceMicros: price.input,
      outputPriceMicros: price.output,
      cacheReadPriceMicros: price.cache_read ?? price.input,
      cacheWritePriceMicros: price.cache_write ?? price.input,
      multiplierBasisPoints: 15_000,
    });
    expect(BigInt(record.cost_micros)).toBe(expected);
  }

  it("bills a streamed Claude answer's cache writes and reads at their own rates", async () => {
    const cached = [
      // Its own context, so that the write is this test's whatever ran before.
      {
        type: "text",
        text: `Streamed. ${longContext}`,
        cache_control: { type: "ephemeral" },
      } as ChatCompletionContentPartText,
    ];
    const written = await streamUsage("claude-sonnet-4-6", cached, "first marker-10");
    const writes = (written.usage.prompt_tokens_details as { cache_write_tokens?: number }).cache_write_tokens!;
    expect(writes).toBeGreaterThanOrEqual(1024);
    await expectBilledAtCacheRates("claude-sonnet-4-6", written.requestId, written.usage);
    const read = await streamUsage("claude-sonnet-4-6", cached, "second marker-10");
    expect(read.usage.prompt_tokens_details!.cached_tokens).toBe(writes);
    await expectBilledAtCacheRates("claude-sonnet-4-6", read.requestId, read.usage);
  });

  it("bills a streamed DeepSeek answer's cache hits at the cache-read rate", async () => {
    await streamUsage("deepseek-chat", longContext, "first marker-11");
    const read = await streamUsage("deepseek-chat", longContext, "second marker-11");
    expect(read.usage.prompt_tokens_details!.cached_tokens).toBeGreaterThanOrEqual(1024);
    await expectBilledAtCacheRates("deepseek-chat", read.requestId, read.usage);
  });
});
