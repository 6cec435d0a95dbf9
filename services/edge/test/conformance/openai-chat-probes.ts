import OpenAI from "openai";
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionTool } from "openai/resources/chat/completions";
import { expect } from "vitest";
import {
  answerSchema,
  billedOnce,
  collect,
  expectBilledAsShown,
  expectFitsSchema,
  expectImageSent,
  expectSchemaSent,
  type IngressProbes,
  longPrefix,
  onlyUpstream,
  type ProbeContext,
  pngBase64,
  timeParameters,
  weatherParameters,
} from "./probe-context.js";

// Each feature through OpenAI's chat completions, with the official openai SDK.

const client = (context: ProbeContext) =>
  new OpenAI({ baseURL: context.stack.baseUrl, apiKey: context.apiKey, maxRetries: 0 });

const tool = (name: string, parameters: Record<string, unknown>): ChatCompletionTool => ({
  type: "function",
  function: { name, parameters },
});
const weather = tool("get_weather", weatherParameters);
const time = tool("get_time", timeParameters);

type WithReasoning = { reasoning_content?: string };

/** Streamed tool-call fragments joined per call index. */
function joinedCalls(chunks: ChatCompletionChunk[]) {
  const calls = new Map<number, { name: string; arguments: string; fragments: number }>();
  for (const fragment of chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])) {
    const call = calls.get(fragment.index) ?? { name: "", arguments: "", fragments: 0 };
    call.name += fragment.function?.name ?? "";
    call.arguments += fragment.function?.arguments ?? "";
    call.fragments += 1;
    calls.set(fragment.index, call);
  }
  return [...calls.values()];
}

function expectWeatherCall(completion: ChatCompletion) {
  const [call] = completion.choices[0]!.message.tool_calls ?? [];
  expect(call).toMatchObject({ type: "function", function: { name: "get_weather" } });
  expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toHaveProperty("city");
}

export const openAIChatProbes = (vendorOfModel: (model: string) => string): IngressProbes => ({
  probes: {
    text: async (context, model, marker) => {
      const completion = await client(context).chat.completions.create({
        model,
        messages: [{ role: "user", content: marker }],
      });
      expect(completion.choices[0]!.message.content).toBeTruthy();
      expect(completion.choices[0]!.finish_reason).toBe("stop");
    },
    stream: async (context, model, marker) => {
      const chunks = await collect(
        await client(context).chat.completions.create({
          model,
          messages: [{ role: "user", content: marker }],
          stream: true,
          stream_options: { include_usage: true },
        }),
      );
      const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
      expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(1);
      expect(text).toBeTruthy();
      expect(chunks.at(-1)!.usage!.total_tokens).toBeGreaterThan(0);
    },
    tools: async (context, model, marker) => {
      const completion = await client(context).chat.completions.create({
        model,
        messages: [{ role: "user", content: `Weather in Paris? ${marker}` }],
        tools: [weather],
        tool_choice: "required",
      });
      expectWeatherCall(completion);
      expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    },
    "streamed tools": async (context, model, marker) => {
      const chunks = await collect(
        await client(context).chat.completions.create({
          model,
          messages: [{ role: "user", content: `Weather in Paris? ${marker}` }],
          tools: [weather],
          stream: true,
        }),
      );
      const [call] = joinedCalls(chunks);
      expect(call!.name).toBe("get_weather");
      expect(JSON.parse(call!.arguments)).toHaveProperty("city");
    },
    "parallel tools": async (context, model, marker) => {
      const completion = await client(context).chat.completions.create({
        model,
        messages: [{ role: "user", content: `Weather and time in Paris? ${marker}` }],
        tools: [weather, time],
        parallel_tool_calls: true,
      });
      const names = (completion.choices[0]!.message.tool_calls ?? []).map(
        (call) => (call as { function: { name: string } }).function.name,
      );
      expect(names).toEqual(["get_weather", "get_time"]);
    },
    vision: async (context, model, marker) => {
      const completion = await client(context).chat.completions.create({
        model,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: `What colour? ${marker}` },
              { type: "image_url", image_url: { url: `data:image/png;base64,${pngBase64}` } },
            ],
          },
        ],
      });
      expect(completion.choices[0]!.message.content).toBeTruthy();
      expectImageSent(vendorOfModel(model), await onlyUpstream(context, marker));
    },
    "structured output": async (context, model, marker) => {
      const completion = await client(context).chat.completions.create({
        model,
        messages: [{ role: "user", content: `Weather in Paris as JSON. ${marker}` }],
        response_format: { type: "json_schema", json_schema: { name: "weather", schema: answerSchema, strict: true } },
      });
      expectFitsSchema(completion.choices[0]!.message.content!);
      expectSchemaSent(await onlyUpstream(context, marker));
    },
    reasoning: async (context, model, marker) => {
      const completion = await client(context).chat.completions.create({
        model,
        messages: [{ role: "user", content: marker }],
        reasoning_effort: "low",
      });
      const message = completion.choices[0]!.message as WithReasoning;
      const reasoningTokens = completion.usage?.completion_tokens_details?.reasoning_tokens ?? 0;
      expect(Boolean(message.reasoning_content) || reasoningTokens > 0).toBe(true);
    },
    "prompt caching": async (context, model, marker) => {
      const ask = () =>
        client(context).chat.completions.create({
          model,
          messages: [
            {
              role: "system",
              // A cache marker for the vendors that cache only marked prefixes (Claude); others ignore it.
              content: [{ type: "text", text: `${marker} ${longPrefix}`, cache_control: { type: "ephemeral" } }],
            } as never,
            { role: "user", content: "Summarise." },
          ],
        });
      await ask();
      const second = await ask();
      expect(second.usage!.prompt_tokens_details?.cached_tokens ?? 0).toBeGreaterThan(0);
    },
    "usage exact": async (context, model, marker) => {
      const { data, response } = await client(context)
        .chat.completions.create({ model, messages: [{ role: "user", content: marker }] })
        .withResponse();
      const usage = data.usage!;
      expectBilledAsShown(await billedOnce(context, response.headers.get("x-request-id") ?? ""), {
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
        reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
      });
    },
  },
});
