import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { injectJsonInstructionIntoMessages } from "@ai-sdk/provider-utils";
import { startTestStack, type TestStack } from "@gateway/stack";
import { ChatOpenAI } from "@langchain/openai";
import { generateObject, type LanguageModelMiddleware, streamText, wrapLanguageModel } from "ai";
import OpenAI from "openai";
import { zodFunction, zodResponseFormat } from "openai/helpers/zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

// The clients people point at an OpenAI-compatible gateway, unmodified, through the real stack
// (edge → router → simulator), one model of each family the router translates for.

let stack: TestStack;
let apiKey: string;

beforeAll(async () => {
  stack = await startTestStack();
  apiKey = (await stack.createAccount({ group: "default" })).api_key;
});
afterAll(async () => {
  await stack?.teardown();
});

const families = [
  ["OpenAI", "gpt-4o-mini"],
  ["Anthropic", "claude-haiku-4-5"],
  ["Gemini", "gemini-2.5-flash"],
  ["DeepSeek", "deepseek-v4-flash"],
] as const;

const Forecast = z.object({
  city: z.string(),
  days: z
    .array(
      z.object({
        date: z.iso.date(),
        high: z.number().min(-40).max(50),
        sky: z.enum(["sunny", "cloudy", "rain"]),
      }),
    )
    .min(2)
    .max(5),
  note: z.string().nullable(),
});
type Forecast = z.infer<typeof Forecast>;

/** What every client must hand back: a value the schema accepts, parsed by the client itself. */
function expectForecast(value: Forecast | null | undefined): void {
  expect(Forecast.parse(value)).toEqual(value);
  expect(value!.days.length).toBeGreaterThanOrEqual(2);
}

const openai = () => new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });
const aiSdk = () => createOpenAI({ baseURL: stack.baseUrl, apiKey });
const langchain = (model: string, streaming = false) =>
  new ChatOpenAI({ model, apiKey, streaming, maxRetries: 0, configuration: { baseURL: stack.baseUrl } });

describe.each(families)("%s (%s) through third-party clients", (_, model) => {
  it("AI SDK generateObject, over Chat Completions and over the Responses API", async () => {
    const provider = aiSdk();
    for (const languageModel of [provider.chat(model), provider.responses(model)]) {
      const { object } = await generateObject({ model: languageModel, schema: Forecast, prompt: "Forecast for Oslo" });
      expectForecast(object);
    }
  });

  it("AI SDK streamText", async () => {
    const result = streamText({ model: aiSdk().chat(model), prompt: "Say hello", maxRetries: 0 });
    let text = "";
    for await (const piece of result.textStream) text += piece;
    expect(text).toMatch(new RegExp(`^Simulated answer from ${model}: Say hello`));
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it("LangChain withStructuredOutput (zod), and a streaming call", async () => {
    const forecast = await langchain(model).withStructuredOutput(Forecast).invoke("Forecast for Lima");
    expectForecast(forecast);
    let text = "";
    for await (const chunk of await langchain(model, true).stream("Say hello")) text += chunk.text;
    expect(text).toMatch(new RegExp(`^Simulated answer from ${model}: Say hello`));
  });

  it("openai chat.completions.parse with zodResponseFormat", async () => {
    const completion = await openai().chat.completions.parse({
      model,
      messages: [{ role: "user", content: "Forecast for Quito" }],
      response_format: zodResponseFormat(Forecast, "forecast"),
    });
    expectForecast(completion.choices[0]!.message.parsed);
  });

  it("openai runTools with a zod tool", async () => {
    const calls: { city: string; days: number }[] = [];
    const runner = openai().chat.completions.runTools({
      model,
      messages: [{ role: "user", content: "What is the weather in Turku?" }],
      tools: [
        zodFunction({
          name: "get_weather",
          parameters: z.object({ city: z.string(), days: z.number().int().min(1).max(7) }),
          function: (args) => {
            calls.push(args);
            return { temperature: 21 };
          },
        }),
      ],
    });
    const content = await runner.finalContent();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.days).toBeGreaterThanOrEqual(1);
    expect(content).toMatch(/^Received tool result: \{"temperature":21\}/);
  });

  it("openai stream helper, for text and for structured output", async () => {
    const client = openai();
    const text = client.chat.completions.stream({ model, messages: [{ role: "user", content: "Say hello" }] });
    const deltas: string[] = [];
    text.on("content", (delta) => deltas.push(delta));
    const completion = await text.finalChatCompletion();
    expect(deltas.length).toBeGreaterThan(1);
    expect(completion.choices[0]!.message.content).toBe(deltas.join(""));
    const structured = client.chat.completions.stream({
      model,
      messages: [{ role: "user", content: "Forecast for Bergen" }],
      response_format: zodResponseFormat(Forecast, "forecast"),
    });
    expectForecast((await structured.finalChatCompletion()).choices[0]!.message.parsed);
  });
});

// Last, because today a stream refused before its first byte can take edge down (robust-streams).
// One model of each of the seven vendor families, in the group the test's key has.
const everyFamily = [
  "gpt-5.4-mini",
  "claude-sonnet-4-6",
  "gemini-3.5-flash",
  "grok-4-1-fast-reasoning",
  "deepseek-v4-flash",
  "qwen-plus",
  "kimi-k2-0905-preview",
];

// What the AI SDK does for a model without structured outputs: JSON mode only, with the schema
// stated in the system prompt in the AI SDK's own words (injectJsonInstruction).
const schemaInThePrompt: LanguageModelMiddleware = {
  specificationVersion: "v3",
  transformParams: async ({ params }) =>
    params.responseFormat?.type === "json" && params.responseFormat.schema
      ? {
          ...params,
          prompt: injectJsonInstructionIntoMessages({ messages: params.prompt, schema: params.responseFormat.schema }),
        }
      : params,
};

describe.each(everyFamily)("JSON mode with the schema in the prompt (%s)", (model) => {
  it("AI SDK generateObject through @ai-sdk/openai-compatible gets an object matching the schema", async () => {
    const sent: unknown[] = [];
    const provider = createOpenAICompatible({
      name: "gateway",
      baseURL: stack.baseUrl,
      apiKey,
      fetch: async (url, init) => {
        sent.push(JSON.parse(String(init?.body)));
        return fetch(url, init);
      },
    });
    const { object } = await generateObject({
      model: wrapLanguageModel({ model: provider.chatModel(model), middleware: schemaInThePrompt }),
      schema: Forecast,
      prompt: "Forecast for Oslo",
      maxRetries: 0,
    });
    expectForecast(object);
    // Only JSON mode on the wire: the schema reached the model in the prompt alone.
    expect(sent[0]).toMatchObject({ response_format: { type: "json_object" } });
    expect(JSON.stringify(sent[0])).toContain("You MUST answer with a JSON object that matches the JSON schema above.");
  });
});

describe("a streaming request for an unknown model", () => {
  const unknown = "no-such-model";

  it("raises a 404 in the openai SDK", async () => {
    const error = await openai()
      .chat.completions.create({ model: unknown, messages: [{ role: "user", content: "Hi" }], stream: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
  });

  it("raises a 404 in the AI SDK", async () => {
    const errors: unknown[] = [];
    const result = streamText({
      model: aiSdk().chat(unknown),
      prompt: "Hi",
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    for await (const _ of result.textStream) expect.unreachable("no text for an unknown model");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ statusCode: 404 });
  });

  it("raises a 404 in LangChain", async () => {
    const stream = langchain(unknown, true).stream("Hi");
    const error = await (async () => {
      for await (const _ of await stream) expect.unreachable("no chunk for an unknown model");
    })().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 404 });
  });

  it("leaves the gateway answering", async () => {
    const completion = await openai().chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Still there?" }],
    });
    expect(completion.choices[0]!.message.content).toMatch(/^Simulated answer/);
  });
});
